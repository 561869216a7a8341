"""Errors of DDL sinks."""

from tisink.core.errors import TisinkError


class DDLSinkError(TisinkError):
    """A DDL or checkpoint could not be written; the message names the table or topic."""
