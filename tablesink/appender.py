"""Appenders: how a table sink buffers rows for its event sink (TiCDC ``event_appender.go``).

Row sinks (blackhole) take rows one by one; MQ and file sinks take single-table transactions,
so the TxnAppender groups consecutive rows into ``SingleTableTxn``. Both check that rows come in
commit order, which the table sink's binary search over the buffer relies on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from tisink.model.events import RowChangedEvent, SingleTableTxn
from tisink.tablesink.errors import EventOrderError
from tisink.tablesink.split import SPLIT_KEY_UPDATES, SplitPolicy

E = TypeVar("E", RowChangedEvent, SingleTableTxn)


class Appender(Protocol[E]):
    """Buffers rows as events of type ``E`` and prepares a flushed prefix for the event sink."""

    #: the last row appended (names the table in errors)
    last: RowChangedEvent | None

    def append(self, buffer: list[E], rows: Sequence[RowChangedEvent]) -> None:
        """Add ``rows`` to the end of ``buffer``; all or nothing (raises EventOrderError)."""
        ...

    def split_updates(self, events: list[E], policy: SplitPolicy = SPLIT_KEY_UPDATES) -> list[E]:
        """The flushed ``events`` with key-changing UPDATEs split into DELETE + INSERT, in the
        order of ``policy``'s architecture."""
        ...


def check_order(last: RowChangedEvent | None, rows: Sequence[RowChangedEvent]) -> None:
    """Raise EventOrderError unless ``rows`` continue ``last`` in (commitTs, startTs) order.

    TiCDC panics when commitTs goes backwards, when startTs goes backwards at an equal commitTs,
    and when one transaction (startTs) carries two commitTs.
    """
    if not rows:
        return
    prev = rows[0] if last is None else last
    prev_commit = prev.commit_ts
    for row in rows:
        commit = row.commit_ts
        if commit == prev_commit:
            if row.start_ts < prev.start_ts:
                raise EventOrderError(
                    f"startTs went backwards at equal commitTs: {row.describe()} "
                    f"after {prev.describe()}"
                )
        elif commit < prev_commit:
            raise EventOrderError(
                f"commitTs went backwards: {row.describe()} after {prev.describe()}"
            )
        elif row.start_ts == prev.start_ts:
            raise EventOrderError(
                f"one transaction has two commitTs: {row.describe()} after {prev.describe()}"
            )
        prev = row
        prev_commit = commit


class RowAppender:
    """Buffers rows one by one (TiCDC ``RowChangeEventAppender``, used by row sinks)."""

    __slots__ = ("last",)

    def __init__(self) -> None:
        #: the last row appended, kept across flushes so order is checked across them too
        self.last: RowChangedEvent | None = None

    def append(self, buffer: list[RowChangedEvent], rows: Sequence[RowChangedEvent]) -> None:
        if not rows:
            return
        check_order(self.last, rows)
        buffer.extend(rows)
        self.last = rows[-1]

    def split_updates(
        self, events: list[RowChangedEvent], policy: SplitPolicy = SPLIT_KEY_UPDATES
    ) -> list[RowChangedEvent]:
        return policy.split_row_stream(events)


class TxnAppender:
    """Groups consecutive rows into single-table transactions (TiCDC ``TxnEventAppender``).

    A new transaction starts on ``split_txn`` (a huge transaction cut by the source), when
    startTs changes, or when the physical table does: each partition of a partitioned table is
    a table of its own to TiCDC (a table sink per partition), so its rows never share a
    transaction with another partition's. ``table_info_version`` is the table's schema version
    raised to at least the table sink's start ts, as storage sinks name their schema files by
    it.
    """

    __slots__ = ("last", "table_sink_start_ts")

    def __init__(self, table_sink_start_ts: int = 0) -> None:
        self.table_sink_start_ts = table_sink_start_ts
        #: the last row appended, kept across flushes so order is checked across them too
        self.last: RowChangedEvent | None = None

    def append(self, buffer: list[SingleTableTxn], rows: Sequence[RowChangedEvent]) -> None:
        if not rows:
            return
        check_order(self.last, rows)
        txn = buffer[-1] if buffer else None
        start = self.table_sink_start_ts
        for row in rows:
            if (
                txn is None
                or row.split_txn
                or row.start_ts != txn.start_ts
                or row.physical_table_id != txn.physical_table_id
            ):
                # positional, and no max() call: once per transaction
                version = row.table.version
                txn = SingleTableTxn(
                    row.start_ts,
                    row.commit_ts,
                    row.table,
                    [row],
                    row.physical_table_id,
                    version if version > start else start,
                )
                buffer.append(txn)
            else:
                txn.rows.append(row)
        self.last = rows[-1]

    def split_updates(
        self, events: list[SingleTableTxn], policy: SplitPolicy = SPLIT_KEY_UPDATES
    ) -> list[SingleTableTxn]:
        for txn in events:
            txn.rows = policy.split_txn_rows(txn.rows)
        return events
