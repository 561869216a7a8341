"""Errors of the SQL applier."""

from tisink.eventsink.errors import EventSinkError


class SQLSinkError(EventSinkError):
    """The database cannot take a change or a DDL; the message names the table (and the
    column when one value is to blame)."""


class SQLNameError(SQLSinkError):
    """A schema, table or column name the database would not keep whole (PostgreSQL cuts
    identifiers past 63 bytes): input the sink refuses, naming the table and each name."""

    refusal = True
