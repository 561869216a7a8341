"""tisink's eventsink layer (see DESIGN.md)."""
