"""What the database already holds, stored in the database itself, so a restarted play resumes.

Two tables, written in the same SQLite transactions as the changes they describe:

* ``tidb_cdc_checkpoint``: the changefeed checkpoint, the ts every table's rows up to are
  written (what the player passes to ``write_checkpoint_ts``). It only grows.
* ``tidb_cdc_ddl_ts``: per table id, the commit ts of the last DDL applied to it, as TiCDC's
  MySQL sink keeps in ``tidb_cdc.ddl_ts_v1``.

A replayed feed is then filtered by the sink itself: a transaction at or below the checkpoint
is already written, and so is one older than its table's last DDL (the player writes a DDL
only after every earlier row of its table was acknowledged). Everything after is applied again,
which the idempotent row statements make harmless.
"""

from __future__ import annotations

import sqlite3

from tisink.plugin import DDLEvent

CHECKPOINT_TABLE = "tidb_cdc_checkpoint"
DDL_TS_TABLE = "tidb_cdc_ddl_ts"
META_TABLES = (CHECKPOINT_TABLE, DDL_TS_TABLE)


def _table_ids(ddl: DDLEvent) -> set[int]:
    return {t.table_id for t in (ddl.table, ddl.pre_table) if t is not None}


class Progress:
    """The checkpoint and the per-table DDL ts, in memory and in the database."""

    def __init__(self, checkpoint_ts: int, ddl_ts: dict[int, int]) -> None:
        self.checkpoint_ts = checkpoint_ts
        self.ddl_ts = ddl_ts

    @classmethod
    def load(cls, conn: sqlite3.Connection) -> Progress:
        """Create the tables if needed and read them."""
        conn.execute(
            f"CREATE TABLE IF NOT EXISTS {CHECKPOINT_TABLE} "
            "(id INTEGER PRIMARY KEY CHECK (id = 0), checkpoint_ts INTEGER NOT NULL)"
        )
        conn.execute(
            f"CREATE TABLE IF NOT EXISTS {DDL_TS_TABLE} "
            "(table_id INTEGER PRIMARY KEY, ddl_ts INTEGER NOT NULL, table_name TEXT NOT NULL)"
        )
        found = conn.execute(f"SELECT checkpoint_ts FROM {CHECKPOINT_TABLE}").fetchone()
        ddl_ts = dict(conn.execute(f"SELECT table_id, ddl_ts FROM {DDL_TS_TABLE}").fetchall())
        return cls(found[0] if found else 0, ddl_ts)

    def txn_applied(self, table_id: int, commit_ts: int) -> bool:
        return commit_ts <= self.checkpoint_ts or commit_ts < self.ddl_ts.get(table_id, 0)

    def ddl_applied(self, ddl: DDLEvent) -> bool:
        ts = ddl.commit_ts
        return ts <= self.checkpoint_ts or any(
            ts <= self.ddl_ts.get(table_id, 0) for table_id in _table_ids(ddl)
        )

    def record_ddl(self, conn: sqlite3.Connection, ddl: DDLEvent) -> None:
        """Store the DDL's ts for its tables, in the caller's transaction (``applied_ddl``
        updates memory once that committed)."""
        conn.executemany(
            f"INSERT OR REPLACE INTO {DDL_TS_TABLE} (table_id, ddl_ts, table_name) "
            "VALUES (?, ?, ?)",
            [(table_id, ddl.commit_ts, ddl.qualified_name) for table_id in _table_ids(ddl)],
        )

    def applied_ddl(self, ddl: DDLEvent) -> None:
        for table_id in _table_ids(ddl):
            self.ddl_ts[table_id] = ddl.commit_ts

    def store_checkpoint(self, conn: sqlite3.Connection, ts: int) -> None:
        """Store ``ts`` if it is ahead, in the caller's transaction."""
        conn.execute(
            f"INSERT INTO {CHECKPOINT_TABLE} (id, checkpoint_ts) VALUES (0, ?) ON CONFLICT (id) "
            "DO UPDATE SET checkpoint_ts = max(checkpoint_ts, excluded.checkpoint_ts)",
            (ts,),
        )
