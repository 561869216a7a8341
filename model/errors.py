"""The model layer's own errors (the root, TisinkError, lives in ``core``)."""

from tisink.core.errors import TisinkError


class ModelError(TisinkError):
    """A table schema, row image or event is inconsistent with the model's rules."""


class SchemaError(ModelError):
    """A table schema is invalid: unknown type, duplicate column, index over a missing column."""

    refusal = True
