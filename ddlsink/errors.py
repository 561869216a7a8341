"""Errors of DDL sinks."""

from model.errors import TisinkError


class DDLSinkError(TisinkError):
    """A DDL or checkpoint could not be written; the message names the table or topic."""
