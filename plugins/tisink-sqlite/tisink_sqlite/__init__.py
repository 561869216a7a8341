"""tisink-sqlite: a tisink sink plugin that applies the change feed to a SQLite database.

``tisink play --engine inline --workload demo --sink-uri sqlite:///demo.db`` replays a feed into
``demo.db``: tables created, altered, renamed, truncated and dropped from the DDL events'
schemas, each TiCDC transaction applied in one SQLite transaction, rows written idempotently by
handle key, the checkpoint kept in the database so that a restarted play resumes after it.
"""

from tisink_sqlite.provider import SQLiteSinkProvider
from tisink_sqlite.sink import SQLiteSink

__all__ = ["SQLiteSink", "SQLiteSinkProvider"]
