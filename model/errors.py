"""The root exception of tisink, and the model layer's own errors."""


class TisinkError(Exception):
    """Root of every error tisink raises on purpose; catch this at the edges."""


class ModelError(TisinkError):
    """A table schema, row image or event is inconsistent with the model's rules."""


class SchemaError(ModelError):
    """A table schema is invalid: unknown type, duplicate column, index over a missing column."""
