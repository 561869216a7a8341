"""The per-table queues of a ``BatchingSink`` and the batches cut from them.

A batch is a run of whole transactions of *one table* at one schema version, in commit order.
One table, because that is the unit TiCDC orders (the table sink's checkpoint and the DDL
barrier are per table) and the unit a destination writes best at once (one statement, one
bulk request, one file); whole transactions, because a destination that applies a batch
atomically then keeps every upstream transaction atomic. Batches are bounded by rows and bytes;
a single transaction larger than the bounds is a batch on its own, never split.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from tisink.eventsink.base import CallbackableEvent, TableSinkState
from tisink.eventsink.errors import EventSinkError
from tisink.model.events import RowChangedEvent, SingleTableTxn
from tisink.model.table import TableInfo

TxnEvent = CallbackableEvent[SingleTableTxn]


@dataclass(slots=True)
class Batch:
    """What ``BatchingSink.write_batch`` gets: whole transactions of one table, in commit order.

    ``attempt`` is 1 on the first try and counts up on retries, so a destination can switch to
    a safer mode (TiCDC's safe mode: replace instead of insert) when it sees a batch again.
    """

    table: TableInfo
    txns: list[SingleTableTxn]
    row_count: int
    size: int
    """Sum of the rows' ``approximate_size`` (0 when the source did not size them)."""
    attempt: int = 1

    @property
    def rows(self) -> list[RowChangedEvent]:
        """Every row of every transaction, in commit order."""
        return [row for txn in self.txns for row in txn.rows]

    @property
    def first_commit_ts(self) -> int:
        return self.txns[0].commit_ts

    @property
    def last_commit_ts(self) -> int:
        return self.txns[-1].commit_ts

    def describe(self) -> str:
        """For errors and logs: how much of which table, at which commit ts."""
        span = f"{self.first_commit_ts}..{self.last_commit_ts}"
        return (
            f"{self.row_count} rows in {len(self.txns)} txns of {self.table.qualified_name} "
            f"(table id {self.table.table_id}, commitTs {span})"
        )


@dataclass(slots=True)
class _Queued:
    event: TxnEvent
    rows: int
    size: int


@dataclass(slots=True)
class Cut:
    """One take from a table's queue: the batch (None when nothing is left to write), the
    callbacks to fire once it is written, and those of txns that need no write."""

    batch: Batch | None
    callbacks: list[Callable[[], None]] = field(default_factory=list)
    skipped: list[Callable[[], None]] = field(default_factory=list)
    rows: int = 0
    size: int = 0


class TableQueues:
    """Txns waiting per table id, with totals of what is queued or being written: above
    ``max_pending_rows`` rows or ``max_pending_bytes`` bytes the queues are ``full``."""

    def __init__(
        self,
        max_batch_rows: int,
        max_batch_bytes: int,
        max_pending_rows: int,
        max_pending_bytes: int,
    ) -> None:
        limits = {
            "max_batch_rows": max_batch_rows,
            "max_batch_bytes": max_batch_bytes,
            "max_pending_rows": max_pending_rows,
            "max_pending_bytes": max_pending_bytes,
        }
        for name, value in limits.items():
            if value <= 0:
                raise EventSinkError(f"{name} must be positive, got {value}")
        self.max_batch_rows = max_batch_rows
        self.max_batch_bytes = max_batch_bytes
        self.max_pending_rows = max_pending_rows
        self.max_pending_bytes = max_pending_bytes
        self._queues: dict[int, deque[_Queued]] = {}
        self._scheduled: set[int] = set()
        self.txns = 0
        self.rows = 0
        self.bytes = 0

    @property
    def full(self) -> bool:
        return self.rows >= self.max_pending_rows or self.bytes >= self.max_pending_bytes

    def put(self, event: TxnEvent) -> int | None:
        """Queue one txn; returns its table id when that table just became ready for a worker
        (it was neither queued for one nor being written)."""
        txn = event.event
        size = sum(row.approximate_size for row in txn.rows)
        table_id = txn.table.table_id
        queue = self._queues.get(table_id)
        if queue is None:
            queue = self._queues[table_id] = deque()
        queue.append(_Queued(event, len(txn.rows), size))
        self.txns += 1
        self.rows += len(txn.rows)
        self.bytes += size
        if table_id in self._scheduled:
            return None
        self._scheduled.add(table_id)
        return table_id

    def cut(self, table_id: int) -> Cut:
        """Take the next batch of ``table_id``: whole txns up to the bounds (at least one),
        all of one schema version. Txns of a stopping table, or without rows, are not written;
        their callbacks come back in ``skipped``."""
        queue = self._queues.get(table_id) or deque()
        cut = Cut(None)
        txns: list[SingleTableTxn] = []
        rows = size = 0
        table: TableInfo | None = None
        while queue:
            item = queue[0]
            event = item.event
            txn = event.event
            if event.sink_state.state is not TableSinkState.NORMAL or not txn.rows:
                queue.popleft()
                cut.skipped.append(event.callback)
            elif table is None or (
                (txn.table is table or txn.table == table)
                and rows + item.rows <= self.max_batch_rows
                and size + item.size <= self.max_batch_bytes
            ):
                queue.popleft()
                table = table or txn.table
                txns.append(txn)
                cut.callbacks.append(event.callback)
                rows += item.rows
                size += item.size
            else:
                break
            cut.rows += item.rows
            cut.size += item.size
        if table is not None:
            cut.batch = Batch(table, txns, rows, size)
        return cut

    def release(self, table_id: int, cut: Cut) -> bool:
        """Forget what ``cut`` took (its callbacks fired); True while ``table_id`` still has
        txns queued, False once it is idle."""
        self.txns -= len(cut.callbacks) + len(cut.skipped)
        self.rows -= cut.rows
        self.bytes -= cut.size
        if self._queues.get(table_id):
            return True
        self._queues.pop(table_id, None)
        self._scheduled.discard(table_id)
        return False

    def clear(self) -> None:
        """Drop everything (the sink died): no callback of a dropped txn ever fires."""
        self._queues.clear()
        self._scheduled.clear()
        self.txns = self.rows = self.bytes = 0
