"""SQLiteSink: applies the change feed to a SQLite database, on ``BatchingSink``.

One object is both the event sink and the DDL sink of a database file. Every call runs on one
thread that owns the connection, so rows, DDLs and checkpoints reach the database in the order
they were awaited while the event loop keeps feeding the table sinks.

* ``write_batch``: the batch's transactions (whole TiCDC transactions of one table) in one
  SQLite transaction, with ``rows.RowStatements``; transactions the database already holds
  (``progress.Progress``) are skipped, so a restarted play resumes after its checkpoint.
* ``write_ddl``: ``schema.apply_ddl`` and the table's DDL ts, in one SQLite transaction.
* ``write_checkpoint``: the checkpoint, stored in the database.

A database busy with another connection is retriable: the base class tries the batch again
after a backoff (each attempt is a fresh transaction; a failed one is rolled back). Any other
database error is fatal and names the table.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from tisink.plugin import Batch, BatchingSink, DDLEvent, RetryPolicy, TableInfo
from tisink_sqlite.errors import SQLiteSinkError
from tisink_sqlite.progress import Progress
from tisink_sqlite.rows import RowStatements
from tisink_sqlite.schema import apply_ddl, ensure_table

log = logging.getLogger(__name__)

T = TypeVar("T")

DEFAULT_BATCH_ROWS = 4096
SYNCHRONOUS_MODES = ("off", "normal", "full", "extra")


class SQLiteSink(BatchingSink):
    """The change feed applied to the SQLite database at ``path``; ``await open()`` first."""

    scheme = "sqlite"

    def __init__(
        self,
        path: Path,
        *,
        synchronous: str = "normal",
        busy_timeout_s: float = 5.0,
        max_batch_rows: int = DEFAULT_BATCH_ROWS,
        retry: RetryPolicy | None = None,
    ) -> None:
        super().__init__(max_batch_rows=max_batch_rows, retry=retry)
        if synchronous.lower() not in SYNCHRONOUS_MODES:
            raise SQLiteSinkError(
                f"synchronous must be one of {', '.join(SYNCHRONOUS_MODES)}, got {synchronous!r}"
            )
        self.path = path
        self._synchronous = synchronous
        self._busy_timeout_s = busy_timeout_s
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="tisink-sqlite")
        self._conn: sqlite3.Connection | None = None
        self._progress = Progress(0, {})
        self._statements: dict[tuple[int, int, str], RowStatements] = {}
        self.replayed_txns = 0
        """Transactions skipped because the database already had them (a resumed play)."""

    @property
    def checkpoint_ts(self) -> int:
        """The checkpoint stored in the database: a play resumes after it."""
        return self._progress.checkpoint_ts

    async def open(self) -> None:
        await self._run(self._open)
        if self.checkpoint_ts:
            log.info("%s: resuming after checkpoint %d", self.path, self.checkpoint_ts)

    # --- the BatchingSink hooks -------------------------------------------------------------

    async def write_batch(self, batch: Batch) -> None:
        await self._run(self._apply_batch, batch)

    async def write_ddl(self, ddl: DDLEvent) -> None:
        await self._run(self._apply_ddl, ddl)

    async def write_checkpoint(self, ts: int) -> None:
        await self._run(self._store_checkpoint, ts)

    async def on_close(self) -> None:
        try:
            await self._run(self._close)
        finally:
            self._thread.shutdown()

    def is_retriable(self, err: Exception) -> bool:
        """Another connection holds the database (SQLITE_BUSY, once the busy timeout ran out):
        transient. SQLITE_LOCKED is a conflict within this connection, which a retry repeats."""
        code = getattr(err, "sqlite_errorcode", None)
        if isinstance(err, sqlite3.OperationalError) and code is not None:
            return code & 0xFF == sqlite3.SQLITE_BUSY
        return super().is_retriable(err)

    # --- on the database thread -------------------------------------------------------------

    async def _run(self, call: Callable[..., T], *args: object) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._thread, call, *args)

    def _open(self) -> None:
        conn = sqlite3.connect(
            self.path, timeout=self._busy_timeout_s, isolation_level=None, check_same_thread=False
        )
        self._conn = conn
        try:
            conn.execute("PRAGMA journal_mode = WAL").fetchall()
            conn.execute(f"PRAGMA synchronous = {self._synchronous}")
            with self._transaction():
                self._progress = Progress.load(conn)
        except BaseException:
            self._close()
            raise

    def _close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        conn = self._conn
        assert conn is not None, "SQLiteSink used before open()"
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.rollback()
            raise
        conn.execute("COMMIT")

    def _statements_for(self, conn: sqlite3.Connection, table: TableInfo) -> RowStatements:
        key = (table.table_id, table.version, table.qualified_name)
        found = self._statements.get(key)
        if found is None:
            ensure_table(conn, table)  # a feed may start after the table's CREATE
            found = self._statements[key] = RowStatements(table)
        return found

    def _apply_batch(self, batch: Batch) -> None:
        applied = self._progress.txn_applied
        txns = [txn for txn in batch.txns if not applied(txn.table.table_id, txn.commit_ts)]
        if txns:
            try:
                with self._transaction() as conn:
                    statements = self._statements_for(conn, batch.table)
                    for sql, params in statements.runs(row for txn in txns for row in txn.rows):
                        conn.executemany(sql, params)
            except BaseException:
                self._statements.clear()  # a table the rolled-back transaction created is gone
                raise
        self.replayed_txns += len(batch.txns) - len(txns)

    def _apply_ddl(self, ddl: DDLEvent) -> None:
        if self._progress.ddl_applied(ddl):
            log.info("%s: already applied, skipped: %s", self.path, ddl.describe())
            return
        with self._transaction() as conn:
            apply_ddl(conn, ddl)
            self._progress.record_ddl(conn, ddl)
        self._progress.applied_ddl(ddl)
        self._statements.clear()  # tables may have gone or changed shape

    def _store_checkpoint(self, ts: int) -> None:
        with self._transaction() as conn:
            self._progress.store_checkpoint(conn, ts)
        self._progress.checkpoint_ts = max(self._progress.checkpoint_ts, ts)
