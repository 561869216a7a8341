"""tisink's codec layer (see DESIGN.md)."""
