"""Errors of the SQL applier."""

from tisink.eventsink.errors import EventSinkError


class SQLSinkError(EventSinkError):
    """The database cannot take a change or a DDL; the message names the table (and the
    column when one value is to blame)."""
