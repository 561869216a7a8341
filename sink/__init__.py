"""tisink's sink layer (see DESIGN.md)."""
