"""tisink's ddlsink layer (see DESIGN.md)."""
