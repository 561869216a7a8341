"""tisink's tablesink layer (see DESIGN.md)."""
