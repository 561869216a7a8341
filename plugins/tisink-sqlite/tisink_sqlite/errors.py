"""Errors of the SQLite sink."""

from tisink.eventsink.errors import EventSinkError


class SQLiteSinkError(EventSinkError):
    """The database cannot take a change; the message names the table."""
