"""What the database already holds, stored in the database itself (``README.md`` of this
package is the contract ``tisink check`` reads). In meta schema ``tidb_cdc``:

* ``checkpoint``: one row, ``checkpoint_ts``: every row with commitTs at or below it is written
  (what the player passes to ``write_checkpoint_ts``). It only grows.
* ``ddl_ts``: per ``table_id``, the commit ts of the last DDL applied to it, as TiCDC's MySQL
  sink keeps ``tidb_cdc.ddl_ts_v1``.
* ``applied_ts``: per ``table_id``, the (commitTs, startTs) of the last transaction written,
  stored in the transaction that writes the rows, so what the database holds is known exactly
  even when the checkpoint trails it (a killed play): a table without a key, whose rows are
  not idempotent, gets none twice when the play resumes.
* ``columns``: the current stored columns of every table the applier made, in order, with their
  MySQL type (``SHOW CREATE TABLE``'s spelling) and whether they form the handle key; rewritten
  with every DDL that changes a table and written when a table is first created from its rows.

A replayed feed is then filtered by the sink: a transaction at or below the checkpoint is
already written, and so is one at or before its table's applied position ((commitTs, startTs):
the table sinks give a table's transactions in that order) or older than its table's last DDL
(the player writes a DDL only after every earlier row of its table was acknowledged).
"""

from __future__ import annotations

from tisink.codec.dts.mysql_codes import original_type
from tisink.eventsink.sql.dialect import Cursor, Dialect
from tisink.model.events import DDLEvent, DDLType
from tisink.model.table import TableInfo

META_SCHEMA = "tidb_cdc"
CHECKPOINT, DDL_TS, APPLIED_TS, COLUMNS = "checkpoint", "ddl_ts", "applied_ts", "columns"
Position = tuple[int, int]
"""A transaction's place in its table's order: (commitTs, startTs)."""


def _table_ids(ddl: DDLEvent) -> set[int]:
    return {t.table_id for t in (ddl.table, ddl.pre_table) if t is not None}


class Meta:
    """The checkpoint and the per-table DDL ts, in memory and in the database."""

    def __init__(self, dialect: Dialect) -> None:
        self._d = dialect
        self.checkpoint_ts = 0
        self.ddl_ts: dict[int, int] = {}
        self.applied: dict[int, Position] = {}
        ref = dialect.table_ref
        self._checkpoint = ref(META_SCHEMA, CHECKPOINT)
        self._ddl_ts = ref(META_SCHEMA, DDL_TS)
        self._applied_ts = ref(META_SCHEMA, APPLIED_TS)
        self._store_applied = dialect.upsert_sql(
            self._applied_ts, ("table_id", "commit_ts", "start_ts"), ("table_id",)
        )
        self._columns = ref(META_SCHEMA, COLUMNS)
        q, m = dialect.quote, dialect.mark
        names = ("schema_name", "table_name", "position", "column_name", "mysql_type", "is_key")
        self._insert_column = dialect.insert_sql(self._columns, names)
        self._delete_columns = (
            f"DELETE FROM {self._columns} "
            f"WHERE {q('schema_name')} = {m} AND {q('table_name')} = {m}"
        )

    def load(self, cur: Cursor) -> None:
        """Create the tables if needed and read them."""
        d, q = self._d, self._d.quote
        options = d.table_options()
        d.ensure_schema(cur, META_SCHEMA)
        cur.execute(
            f"CREATE TABLE IF NOT EXISTS {self._checkpoint} "
            f"(checkpoint_ts BIGINT NOT NULL){options}"
        )
        cur.execute(
            f"CREATE TABLE IF NOT EXISTS {self._ddl_ts} "
            f"(table_id BIGINT NOT NULL PRIMARY KEY, ddl_ts BIGINT NOT NULL){options}"
        )
        cur.execute(
            f"CREATE TABLE IF NOT EXISTS {self._applied_ts} (table_id BIGINT NOT NULL PRIMARY "
            f"KEY, commit_ts BIGINT NOT NULL, start_ts BIGINT NOT NULL){options}"
        )
        cur.execute(
            f"CREATE TABLE IF NOT EXISTS {self._columns} (schema_name VARCHAR(64) NOT NULL, "
            f"table_name VARCHAR(64) NOT NULL, {q('position')} INT NOT NULL, "
            "column_name VARCHAR(64) NOT NULL, mysql_type TEXT NOT NULL, is_key INT NOT NULL, "
            f"PRIMARY KEY (schema_name, table_name, {q('position')})){options}"
        )
        cur.execute(f"SELECT checkpoint_ts FROM {self._checkpoint}")
        found = cur.fetchall()
        if not found:
            cur.execute(f"INSERT INTO {self._checkpoint} (checkpoint_ts) VALUES (0)")
        self.checkpoint_ts = max((row[0] for row in found), default=0)
        cur.execute(f"SELECT table_id, ddl_ts FROM {self._ddl_ts}")
        self.ddl_ts = {int(row[0]): int(row[1]) for row in cur.fetchall()}
        cur.execute(f"SELECT table_id, commit_ts, start_ts FROM {self._applied_ts}")
        self.applied = {int(row[0]): (int(row[1]), int(row[2])) for row in cur.fetchall()}

    def txn_applied(self, table_id: int, commit_ts: int, start_ts: int) -> bool:
        return (
            commit_ts <= self.checkpoint_ts
            or commit_ts < self.ddl_ts.get(table_id, 0)
            or (commit_ts, start_ts) <= self.applied.get(table_id, (0, 0))
        )

    def store_applied(self, cur: Cursor, table_id: int, position: Position) -> None:
        """Store the position of a table's last written transaction, in the transaction that
        wrote it (``applied`` is updated by the caller once that committed)."""
        cur.execute(self._store_applied, (table_id, *position))

    def ddl_applied(self, ddl: DDLEvent) -> bool:
        ts = ddl.commit_ts
        return ts <= self.checkpoint_ts or any(
            ts <= self.ddl_ts.get(table_id, 0) for table_id in _table_ids(ddl)
        )

    def record_ddl(self, cur: Cursor, ddl: DDLEvent) -> None:
        """Store the DDL's ts for its tables and the columns it leaves, in the caller's
        transaction (``applied_ddl`` updates memory once that committed)."""
        m = self._d.mark
        ids = [(table_id,) for table_id in sorted(_table_ids(ddl))]
        cur.executemany(f"DELETE FROM {self._ddl_ts} WHERE table_id = {m}", ids)
        cur.executemany(
            f"INSERT INTO {self._ddl_ts} (table_id, ddl_ts) VALUES ({m}, {m})",
            [(table_id, ddl.commit_ts) for (table_id,) in ids],
        )
        for gone in (ddl.pre_table, ddl.table):
            if gone is not None:
                cur.execute(self._delete_columns, (gone.schema, gone.table))
        if ddl.table is not None and ddl.ddl_type is not DDLType.ERASE:
            self._insert_columns(cur, ddl.table)

    def applied_ddl(self, ddl: DDLEvent) -> None:
        for table_id in _table_ids(ddl):
            self.ddl_ts[table_id] = ddl.commit_ts

    def write_columns(self, cur: Cursor, table: TableInfo) -> None:
        """Replace the ``columns`` rows of ``table``, in the caller's transaction."""
        cur.execute(self._delete_columns, (table.schema, table.table))
        self._insert_columns(cur, table)

    def _insert_columns(self, cur: Cursor, table: TableInfo) -> None:
        key = set(table.handle_key)
        cur.executemany(
            self._insert_column,
            [
                (table.schema, table.table, position, col.name, original_type(col),
                 int(col.name in key))
                for position, col in enumerate(table.stored_columns)
            ],
        )  # fmt: skip

    def store_checkpoint(self, cur: Cursor, ts: int) -> None:
        """Store ``ts`` if it is ahead, in the caller's transaction."""
        m = self._d.mark
        cur.execute(
            f"UPDATE {self._checkpoint} SET checkpoint_ts = {m} WHERE checkpoint_ts < {m}", (ts, ts)
        )
