"""tisink's tisink layer (see DESIGN.md)."""
