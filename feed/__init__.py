"""tisink's feed layer (see DESIGN.md)."""
