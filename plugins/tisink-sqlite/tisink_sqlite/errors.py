"""Errors of the SQLite sink."""

from tisink.plugin import EventSinkError


class SQLiteSinkError(EventSinkError):
    """The database cannot take a change; the message names the table."""
