"""BatchingSink: the base class for custom sinks. Implement ``write_batch`` and get the rest.

    class MySink(BatchingSink):
        scheme = "my"

        async def write_batch(self, batch: Batch) -> None:      # required
            ...  # write batch.rows (or batch.txns); return once they are durable

        async def write_ddl(self, ddl: DDLEvent) -> None: ...   # optional
        async def write_checkpoint(self, ts: int) -> None: ...  # optional
        async def on_close(self) -> None: ...                   # optional: release resources

The base class fulfils the EventSink contract (``eventsink/base.py``) and the DDLSink one
(``ddlsink/base.py``), so one object can serve as both:

* ``write_events`` only queues, per table (``batching_queue`` says what a batch holds and why);
* ``concurrency`` workers hand batches to ``write_batch`` (``batching_workers``), never two of
  one table at once, so order is kept per table;
* callbacks fire only after ``write_batch`` returned;
* an error ``is_retriable`` accepts is retried with backoff (``batching_retry``), so
  ``write_batch`` must be atomic or idempotent; any other error is fatal: ``error`` names the
  table, the commit ts and the cause, queued batches are dropped without callbacks, and the
  player stops;
* ``wait_for_capacity`` is the player's back-pressure; ``close`` drains, then calls
  ``on_close``, once.
"""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass

from tisink.eventsink.batching_queue import Batch, Cut, TableQueues, TxnEvent
from tisink.eventsink.batching_retry import RetryPolicy, retrying
from tisink.eventsink.batching_workers import TableWorkers
from tisink.eventsink.errors import EventSinkError, RetriableError, SinkDeadError
from tisink.eventsink.stats import SinkStats
from tisink.model.events import DDLEvent
from tisink.model.table import TableInfo

__all__ = ["Batch", "BatchingSink", "RetryPolicy"]

log = logging.getLogger(__name__)

DEFAULT_MAX_BATCH_ROWS = 1024
DEFAULT_MAX_BATCH_BYTES = 4 << 20
DEFAULT_MAX_PENDING_ROWS = 64 * 1024
DEFAULT_MAX_PENDING_BYTES = 64 << 20
"""Queued or in-flight bytes above which ``wait_for_capacity`` holds the player (as the MQ
sink's ``max_inflight_bytes``)."""


@dataclass(slots=True)
class BatchingStats:
    """What a BatchingSink did; ``stats()`` returns it as a SinkStats."""

    rows: int = 0
    txns: int = 0
    batches: int = 0
    retries: int = 0
    skipped_txns: int = 0
    ddls: int = 0
    checkpoints: int = 0


class BatchingSink(ABC):
    """An EventSink (and DDLSink) around ``write_batch``; see the module docstring."""

    scheme: str = "batching"
    wants_txn = True
    retriable_errors: tuple[type[Exception], ...] = (RetriableError,)

    def __init__(
        self,
        *,
        max_batch_rows: int = DEFAULT_MAX_BATCH_ROWS,
        max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES,
        max_pending_rows: int = DEFAULT_MAX_PENDING_ROWS,
        max_pending_bytes: int = DEFAULT_MAX_PENDING_BYTES,
        concurrency: int = 1,
        retry: RetryPolicy | None = None,
    ) -> None:
        self._queues = TableQueues(
            max_batch_rows, max_batch_bytes, max_pending_rows, max_pending_bytes
        )
        self._retry = retry or RetryPolicy()
        self._stats = BatchingStats()
        self._error: EventSinkError | None = None
        self._closed = False
        self._checkpoint_ts = 0
        self._workers = TableWorkers(concurrency, self._write_next, f"{self.scheme}-batch-writer")
        self._changed: asyncio.Event | None = None

    # --- what a subclass implements --------------------------------------------------------

    @abstractmethod
    async def write_batch(self, batch: Batch) -> None:
        """Write ``batch`` and return once the destination has it; raise to fail it."""

    async def write_ddl(self, ddl: DDLEvent) -> None:
        """Apply a DDL; the table's earlier rows are all written (the player's barrier)."""
        return None

    async def write_checkpoint(self, ts: int) -> None:
        """Record that every row with commitTs <= ``ts`` is written (called when it grows)."""
        return None

    async def on_close(self) -> None:
        """Release the destination; called once, after the queues drained."""
        return None

    def is_retriable(self, err: Exception) -> bool:
        """Whether ``err`` is transient, so the same write may succeed if tried again."""
        return isinstance(err, self.retriable_errors)

    # --- the EventSink protocol ------------------------------------------------------------

    def write_events(self, events: Sequence[TxnEvent]) -> None:
        """Queue transactions and return at once; an empty call is a health check."""
        self._check_alive()
        if not events:
            return
        if not self._workers.started:
            try:
                self._workers.start()
            except RuntimeError as err:
                raise EventSinkError(f"{self.scheme} sink needs a running asyncio loop") from err
        for event in events:
            table_id = self._queues.put(event)
            if table_id is not None:
                self._workers.ready(table_id)

    @property
    def error(self) -> BaseException | None:
        return self._error

    @property
    def closed(self) -> bool:
        return self._closed

    async def close(self) -> None:
        """Write what is queued (unless the sink is dead), stop the workers, ``on_close``."""
        if self._closed:
            return
        self._closed = True
        try:
            while self._error is None and self._queues.txns:
                await self._next_change()
            self._workers.stop()
            await self._workers.join()
        finally:
            await self.on_close()
            stats = self.stats().to_dict()
            log.info("%s sink closed: %s", self.scheme, stats, extra=stats)

    # --- the DDLSink protocol --------------------------------------------------------------

    async def write_ddl_event(self, ddl: DDLEvent) -> None:
        self._check_alive()
        await self._call(lambda _: self.write_ddl(ddl), f"applying DDL {ddl.describe()}")
        self._stats.ddls += 1

    async def write_checkpoint_ts(self, ts: int, tables: Sequence[TableInfo]) -> None:
        """Passes ``ts`` to ``write_checkpoint`` only when it advanced."""
        self._check_alive()
        if ts <= self._checkpoint_ts:
            return
        await self._call(lambda _: self.write_checkpoint(ts), f"storing checkpoint {ts}")
        self._checkpoint_ts = ts
        self._stats.checkpoints += 1

    # --- back-pressure and observability ---------------------------------------------------

    async def wait_for_capacity(self) -> None:
        """Return once the queues are below their limits; SinkDeadError if the sink died."""
        while self._error is None and self._queues.full:
            await self._next_change()
        self._check_alive()

    async def flush(self) -> None:
        """Return once everything queued so far is written; SinkDeadError if the sink died."""
        while self._error is None and self._queues.txns:
            await self._next_change()
        self._check_alive()

    def stats(self) -> SinkStats:
        """Rows, txns and batches handed to ``write_batch`` and written, retries, txns of closing
        tables acknowledged unwritten, DDLs and checkpoints."""
        return SinkStats(**asdict(self._stats))

    # --- internals -------------------------------------------------------------------------

    def _check_alive(self) -> None:
        if self._error is not None:
            raise SinkDeadError(f"{self.scheme} sink is dead: {self._error}") from self._error
        if self._closed:
            raise EventSinkError(f"{self.scheme} sink is closed")

    async def _next_change(self) -> None:
        if self._changed is None:
            self._changed = asyncio.Event()
        self._changed.clear()
        await self._changed.wait()

    def _notify(self) -> None:
        if self._changed is not None:
            self._changed.set()

    async def _write_next(self, table_id: int) -> bool:
        """A worker's turn at ``table_id``: write its next batch, fire the callbacks, make the
        table ready again if more is queued. False once the sink is dead."""
        if self._error is not None:
            return False
        try:
            cut = self._queues.cut(table_id)
            if cut.batch is not None:
                await self._write(cut)
        except EventSinkError as err:
            self._fail(err)  # already recorded when it came from _call
            return False
        except Exception as err:
            failure = EventSinkError(f"{self.scheme} sink worker failed: {err!r}")
            failure.__cause__ = err
            self._fail(failure)
            return False
        for callback in cut.skipped:
            callback()
        self._stats.skipped_txns += len(cut.skipped)
        if self._error is None and self._queues.release(table_id, cut):
            self._workers.ready(table_id)
        self._notify()
        return self._error is None

    async def _write(self, cut: Cut) -> None:
        batch = cut.batch
        assert batch is not None

        async def attempt(number: int) -> None:
            batch.attempt = number
            await self.write_batch(batch)

        await self._call(attempt, f"writing {batch.describe()}")
        for callback in cut.callbacks:
            callback()
        self._stats.rows += batch.row_count
        self._stats.txns += len(batch.txns)
        self._stats.batches += 1

    async def _call(self, write: Callable[[int], Awaitable[None]], what: str) -> None:
        """``write`` with the retry policy; a failure that ends it kills the sink."""
        what = f"{self.scheme} sink: {what}"
        try:
            await retrying(write, self._retry, self.is_retriable, what, self._count_retry)
        except EventSinkError as failure:
            self._fail(failure)
            raise

    def _count_retry(self) -> None:
        self._stats.retries += 1

    def _fail(self, err: EventSinkError) -> None:
        if self._error is None:
            self._error = err
            log.error("%s sink is dead: %s", self.scheme, err)
            self._queues.clear()
            self._workers.stop()
        self._notify()
