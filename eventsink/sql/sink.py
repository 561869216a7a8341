"""SQLSink: applies the change feed to a database through a ``Dialect``, on ``BatchingSink``.

One object is both the event sink and the DDL sink of a database (TiCDC's MySQL sink and its
DDL sink in one). Every call runs on the thread of a connection (``lanes``; one for SQLite,
``worker-count`` for the servers) while the event loop keeps feeding the table sinks; a table's
batches are written one at a time, in order, and a DDL only after its table's rows.

* ``write_batch``: the batch's transactions (whole TiCDC transactions of one table) in one
  database transaction with the table's applied position, with ``rows.RowStatements`` built once
  per table version; transactions the database already holds (``meta.Meta``) are skipped, so a
  restarted play resumes where the database is, even past its checkpoint.
* ``write_ddl``: ``schema.apply_ddl``, the table's DDL ts and its columns, in one transaction
  (MySQL: the DDL commits itself, the metadata right after).
* ``write_checkpoint``: the checkpoint, stored in the database.

Deadlocks, lock wait timeouts, serialization failures and a busy SQLite are retriable: the base
class tries the batch again after a backoff (each attempt a fresh transaction; a failed one is
rolled back). Any other error is fatal and names the table, and the column when one is to blame.
"""

from __future__ import annotations

import logging

from tisink.eventsink.batching import Batch, BatchingSink, RetryPolicy
from tisink.eventsink.batching_retry import retrying
from tisink.eventsink.errors import EventSinkError
from tisink.eventsink.sql.dialect import Cursor, Dialect
from tisink.eventsink.sql.errors import SQLSinkError
from tisink.eventsink.sql.lanes import Lane, Lanes
from tisink.eventsink.sql.meta import Meta
from tisink.eventsink.sql.rows import WRITE, RowStatements
from tisink.eventsink.sql.schema import apply_ddl, ensure_table
from tisink.model.events import DDLEvent
from tisink.model.table import TableInfo

log = logging.getLogger(__name__)

DEFAULT_BATCH_ROWS = 4096


class SQLSink(BatchingSink):
    """The change feed applied to the database of ``dialect`` through ``connections``
    connections (``lanes.Lanes``); ``await open()`` first."""

    def __init__(
        self,
        dialect: Dialect,
        *,
        max_batch_rows: int = DEFAULT_BATCH_ROWS,
        connections: int = 1,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.scheme = dialect.name
        super().__init__(max_batch_rows=max_batch_rows, concurrency=connections, retry=retry)
        self.dialect = dialect
        self._lanes = Lanes(dialect, connections)
        self._meta = Meta(dialect)
        self.replayed_txns = 0
        """Transactions skipped because the database already had them (a resumed play)."""

    @property
    def checkpoint_ts(self) -> int:
        """The checkpoint stored in the database: a play resumes after it."""
        return self._meta.checkpoint_ts

    async def open(self) -> None:
        """Connect and read the stored progress; a database busy with another connection is
        waited for as a busy batch would be, then named in a SQLSinkError (as is any error)."""
        lanes = self._lanes.all

        async def load(_attempt: int) -> None:
            await lanes[0].run(self._load)

        try:
            for lane in lanes:
                await lane.run(lane.dialect.connect)
            await retrying(load, self._retry, self.is_retriable, "reading the progress", _quiet)
        except BaseException as err:
            await self.on_close()
            if isinstance(err, Exception) and not isinstance(err, SQLSinkError):
                cause = err.__cause__ if isinstance(err, EventSinkError) else err
                raise SQLSinkError(
                    f"{self.dialect.describe()}: cannot open: {cause or err}"
                ) from err
            raise
        if self.checkpoint_ts:
            where = self.dialect.describe()
            log.info("%s: resuming after checkpoint %d", where, self.checkpoint_ts)

    # --- the BatchingSink hooks -------------------------------------------------------------

    async def write_batch(self, batch: Batch) -> None:
        skipped = await self._lanes.run(self._apply_batch, batch)
        self.replayed_txns += skipped  # after the await: another lane's batch may end first

    async def write_ddl(self, ddl: DDLEvent) -> None:
        await self._lanes.run(self._apply_ddl, ddl)

    async def write_checkpoint(self, ts: int) -> None:
        await self._lanes.run(self._store_checkpoint, ts)

    async def on_close(self) -> None:
        for lane in self._lanes.all:
            try:
                await lane.run(lane.dialect.close)
            finally:
                lane.shutdown()

    def is_retriable(self, err: Exception) -> bool:
        return self.dialect.is_retriable(err) or super().is_retriable(err)

    # --- on a lane's thread -----------------------------------------------------------------

    def _load(self) -> None:
        with self.dialect.transaction() as cur:
            self._meta.load(cur)

    def _statements_for(self, lane: Lane, cur: Cursor, table: TableInfo) -> RowStatements:
        key = (table.table_id, table.version, table.qualified_name)
        found = lane.statements.get(key)
        if found is None:
            if ensure_table(lane.dialect, cur, table):  # a feed may start after the CREATE
                self._meta.write_columns(cur, table)
            found = lane.statements[key] = RowStatements(lane.dialect, table)
        return found

    def _apply_batch(self, lane: Lane, batch: Batch) -> int:
        """Write the transactions the database lacks; how many it had."""
        meta = self._meta
        applied = meta.txn_applied
        table_id = batch.table.table_id
        txns = [txn for txn in batch.txns if not applied(table_id, txn.commit_ts, txn.start_ts)]
        if txns:
            statements: RowStatements | None = None
            last = (txns[-1].commit_ts, txns[-1].start_ts)
            try:
                with lane.dialect.transaction() as cur:
                    statements = self._statements_for(lane, cur, batch.table)
                    statements.apply(cur, (row for txn in txns for row in txn.rows))
                    meta.store_applied(cur, table_id, last)
                meta.applied[table_id] = last
            except Exception as err:
                lane.statements.clear()  # a table the rolled-back transaction created is gone
                if self.is_retriable(err) or isinstance(err, SQLSinkError):
                    raise
                raise self._failure(lane, batch.table, statements, err) from err
        return len(batch.txns) - len(txns)

    def _failure(
        self, lane: Lane, table: TableInfo, statements: RowStatements | None, err: Exception
    ) -> SQLSinkError:
        """The error naming the table, and the column the dialect finds to blame."""
        where = f"table {table.qualified_name}"
        if statements is not None and statements.failed is not None:
            kind, params = statements.failed
            bad_column = lane.dialect.bad_column
            found = bad_column(statements.columns, params) if kind == WRITE else None
            if found is not None:
                return SQLSinkError(f"{where} column {found[0]}: {found[1]}")
        return SQLSinkError(f"{where}: {err}")

    def _apply_ddl(self, lane: Lane, ddl: DDLEvent) -> None:
        if self._meta.ddl_applied(ddl):
            log.info("%s: already applied, skipped: %s", self.dialect.describe(), ddl.describe())
            return
        try:
            with lane.dialect.transaction() as cur:
                apply_ddl(lane.dialect, cur, ddl)
                self._meta.record_ddl(cur, ddl)
        except Exception as err:
            if self.is_retriable(err) or isinstance(err, SQLSinkError):
                raise
            raise SQLSinkError(f"table {ddl.qualified_name}: {ddl.describe()}: {err}") from err
        finally:
            self._lanes.forget_statements()
        self._meta.applied_ddl(ddl)

    def _store_checkpoint(self, lane: Lane, ts: int) -> None:
        with lane.dialect.transaction() as cur:
            self._meta.store_checkpoint(cur, ts)
        self._meta.checkpoint_ts = max(self._meta.checkpoint_ts, ts)


def _quiet() -> None:
    """Retries while opening are not counted: the sink has no batches yet."""
