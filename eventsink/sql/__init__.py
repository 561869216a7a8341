"""The SQL applier: the change feed applied to SQLite, MySQL/MariaDB or PostgreSQL.

``SQLSink`` (on ``BatchingSink``) is the event sink and the DDL sink of one database; a
``Dialect`` holds what differs between databases (``sqlite``, ``mysql``, ``postgresql``; the
last two import their drivers, so they are imported where used). ``README.md`` here describes
the metadata the applier keeps in the database, which ``tisink check`` reads.
"""

from tisink.eventsink.sql.dialect import Dialect
from tisink.eventsink.sql.errors import SQLSinkError
from tisink.eventsink.sql.sink import DEFAULT_BATCH_ROWS, SQLSink
from tisink.eventsink.sql.sqlite import SQLiteDialect

__all__ = ["DEFAULT_BATCH_ROWS", "Dialect", "SQLSink", "SQLSinkError", "SQLiteDialect"]
