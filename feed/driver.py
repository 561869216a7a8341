"""The table-sink driver both engines share: pending transactions, resolve cadence, drain, close.

A player hands it rows in commit order; the driver keeps them as transactions (one table at one
commitTs) and, on a resolve, gives each transaction to its table sink and resolves that sink at
the transaction's commitTs, one after the other, ordered by (commitTs, table id). So the event
sink receives every transaction in commit order, whatever tables share a partition: a
partition's messages follow the feed (DTS binlog positions never go back). And the order is one
every engine can reproduce from the rows it has: it does not depend on where the resolve
cadence cut the stream, nor, for a transaction spanning tables, on which rows of it a Spark
partition owner sees.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from tisink.codec.bootstrap import BootstrapSend
from tisink.core.errors import TisinkError
from tisink.eventsink.base import EventSink
from tisink.eventsink.capabilities import (
    BackPressured,
    FlushesAtBarriers,
    NotifiesAcks,
    TracksInflight,
    WritesBootstraps,
)
from tisink.eventsink.errors import SinkDeadError
from tisink.model.events import ResolvedTs, RowChangedEvent

log = logging.getLogger(__name__)

DEFAULT_RESOLVE_EVERY_ROWS = 4096
DEFAULT_RESOLVE_EVERY_BYTES = 256 * 1024
"""TiCDC's sink manager advances a table sink every ~256 KiB (defaultMaxUpdateIntervalSize)."""
ABORT_CLOSE_TIMEOUT_S = 5.0
POLL_FALLBACK_S = 0.002
"""How long a drain sleeps between checks when the event sink cannot signal its acks."""


class TableSinkLike(Protocol):
    """The part of ``tablesink.TableSink`` the driver uses."""

    def append_row_changed_events(self, rows: Sequence[RowChangedEvent]) -> None: ...

    def update_resolved_ts(self, rts: ResolvedTs) -> None: ...

    def get_checkpoint_ts(self) -> ResolvedTs: ...

    async def close(self) -> None: ...

    def async_close(self) -> bool: ...


MakeTableSink = Callable[[int], TableSinkLike]


def _txn_order(item: tuple[tuple[int, int], list[RowChangedEvent]]) -> tuple[int, int]:
    (table_id, commit_ts), _ = item
    return commit_ts, table_id


def _place(bootstrap: tuple[int, int, BootstrapSend]) -> tuple[int, int]:
    return bootstrap[0], bootstrap[1]


OrderRows = Callable[[int, list[RowChangedEvent]], list[RowChangedEvent]]
"""Puts one transaction's rows of a table in the order its sink must get them."""


class TableSinkDriver:
    """Owns the table sinks of one play (or one partition owner). Single use."""

    def __init__(
        self,
        event_sink: EventSink[Any],
        make_table_sink: MakeTableSink,
        *,
        resolve_every_rows: int = DEFAULT_RESOLVE_EVERY_ROWS,
        resolve_every_bytes: int = DEFAULT_RESOLVE_EVERY_BYTES,
        order_rows: OrderRows | None = None,
    ) -> None:
        self._event_sink = event_sink
        self._make_table_sink = make_table_sink
        self._every_rows = resolve_every_rows
        self._every_bytes = resolve_every_bytes
        self._order_rows = order_rows
        self._capacity = event_sink if isinstance(event_sink, BackPressured) else None
        self._inflight = event_sink if isinstance(event_sink, TracksInflight) else None
        self._flushes = event_sink if isinstance(event_sink, FlushesAtBarriers) else None
        self._acked = asyncio.Event()
        self._signalled = isinstance(event_sink, NotifiesAcks)
        if isinstance(event_sink, NotifiesAcks):
            event_sink.add_ack_listener(self._acked.set)
        self.sinks: dict[int, TableSinkLike] = {}
        self._pending: dict[tuple[int, int], list[RowChangedEvent]] = {}
        self._last_table: object = None
        self._last_ts = -1
        self._last_txn: list[RowChangedEvent] = []
        self._bootstraps: list[tuple[int, int, BootstrapSend]] = []
        """Planned BOOTSTRAPs, each at the (commitTs, table id) of the transaction it precedes
        (table id -1: before every transaction after that ts)."""
        self.txn_ts = 0
        """The commitTs of the newest row or DDL taken."""
        self.resolved = 0
        self._since_rows = 0
        self._since_bytes = 0
        self.opened = 0
        """Table sinks opened so far."""

    def add_row(self, row: RowChangedEvent) -> None:
        """Take one row (commit order is the caller's promise)."""
        table = row.table
        if table is self._last_table and row.commit_ts == self._last_ts:
            self._last_txn.append(row)  # the common case: the same transaction as before
        else:
            key = (table.table_id, row.commit_ts)
            txn = self._pending.get(key)
            if txn is None:
                txn = self._pending[key] = [row]
            else:
                txn.append(row)
            self._last_table, self._last_ts, self._last_txn = table, row.commit_ts, txn
        self._since_rows += 1
        self._since_bytes += row.approximate_size

    def add_bootstrap(self, ts: int, table_id: int, send: BootstrapSend) -> None:
        """Have the event sink write ``send`` right before the transaction of ``table_id`` at
        ``ts`` would go (a Spark owner's planned BOOTSTRAP; ``table_id`` -1: after every
        transaction at or before ``ts``)."""
        if not isinstance(self._event_sink, WritesBootstraps):
            raise SinkDeadError(f"{self._event_sink.scheme} event sink cannot write BOOTSTRAPs")
        self._bootstraps.append((ts, table_id, send))

    def cadence_due(self) -> bool:
        """True when enough rows or bytes wait to be resolved (checked at commit boundaries)."""
        return self._since_rows >= self._every_rows or self._since_bytes >= self._every_bytes

    async def resolve(self, ts: int) -> None:
        """Hand every pending transaction (all have commitTs <= ``ts``) to its table sink in
        commit order, resolve every sink to ``ts``, then wait for room in the event sink."""
        self._flush()
        if ts <= self.resolved:
            return
        rts = ResolvedTs(ts)
        for sink in self.sinks.values():
            sink.update_resolved_ts(rts)
        self.resolved = ts
        if self._capacity is not None:
            await self._capacity.wait_for_capacity()

    def _flush(self) -> None:
        """Each pending transaction to its table sink, in (commitTs, table id) order; a run of
        transactions of one table is resolved in one call (one ``write_events``), planned
        BOOTSTRAPs go between them."""
        order = self._order_rows
        sinks = self.sinks
        planned = sorted(self._bootstraps, key=_place) if self._bootstraps else []
        at = 0
        run: TableSinkLike | None = None
        run_ts = 0
        for (table_id, commit_ts), rows in sorted(self._pending.items(), key=_txn_order):
            while at < len(planned) and _place(planned[at]) <= (commit_ts, table_id):
                if run is not None:
                    run.update_resolved_ts(ResolvedTs(run_ts))
                    run = None
                self._write_bootstrap(planned[at][2])
                at += 1
            sink = sinks.get(table_id)
            if sink is None:
                sink = self._open(table_id)
            if run is not None and run is not sink:
                run.update_resolved_ts(ResolvedTs(run_ts))
            if order is not None:
                rows = order(table_id, rows)
            sink.append_row_changed_events(rows)
            run, run_ts = sink, commit_ts
        if run is not None:
            run.update_resolved_ts(ResolvedTs(run_ts))
        for _, _, send in planned[at:]:
            self._write_bootstrap(send)
        self._bootstraps.clear()
        self._pending.clear()
        self._last_table = None
        self._since_rows = self._since_bytes = 0

    def _write_bootstrap(self, send: BootstrapSend) -> None:
        assert isinstance(self._event_sink, WritesBootstraps)
        self._event_sink.write_bootstrap(send)

    def _open(self, table_id: int) -> TableSinkLike:
        sink = self.sinks[table_id] = self._make_table_sink(table_id)
        if self.resolved:
            # no row of it is pending below this ts, so its checkpoint may start there
            sink.update_resolved_ts(ResolvedTs(self.resolved))
        self.opened += 1
        return sink

    async def drain(self, ts: int) -> None:
        """Resolve to ``ts`` and return once every table's checkpoint reached it and the event
        sink holds nothing unacknowledged: all that was handed over is stored."""
        await self.resolve(ts)
        if self._flushes is not None:
            self._flushes.flush_open()
        sinks = list(self.sinks.values())
        while self._behind(sinks, ts):
            self.check_event_sink()
            self._acked.clear()
            if self._behind(sinks, ts):
                await self._wait_for_acks()
        self.check_event_sink()

    def _behind(self, sinks: Sequence[TableSinkLike], ts: int) -> bool:
        if any(s.get_checkpoint_ts().resolved_mark < ts for s in sinks):
            return True
        return self._inflight is not None and self._inflight.inflight_bytes > 0

    async def _wait_for_acks(self) -> None:
        if not self._signalled:
            await asyncio.sleep(POLL_FALLBACK_S)
            return
        with contextlib.suppress(TimeoutError):  # a sink failure or a sink timer: look again
            await asyncio.wait_for(self._acked.wait(), POLL_FALLBACK_S * 50)

    def checkpoint(self) -> int:
        """The ts every table's checkpoint has passed (at most the resolved ts)."""
        ts = self.resolved
        for sink in self.sinks.values():
            mark = sink.get_checkpoint_ts().resolved_mark
            if mark < ts:
                ts = mark
        return ts

    def check_event_sink(self) -> None:
        """Raise the event sink's error, if it died."""
        error = self._event_sink.error
        if error is None:
            return
        if isinstance(error, TisinkError):
            raise error
        raise SinkDeadError(f"{self._event_sink.scheme} event sink failed: {error!r}") from error

    async def close_tables(self, table_ids: Sequence[int]) -> None:
        """Close these tables' sinks (TRUNCATE, DROP): their rows are all acknowledged."""
        for table_id in table_ids:
            sink = self.sinks.pop(table_id, None)
            if sink is not None:
                await sink.close()

    async def close(self) -> None:
        await self.close_tables(list(self.sinks))

    async def abort(self) -> None:
        """After an error: close the table sinks without blocking on them for long."""
        sinks = list(self.sinks.values())
        self.sinks.clear()
        deadline = time.monotonic() + ABORT_CLOSE_TIMEOUT_S
        while sinks := [s for s in sinks if not s.async_close()]:
            if time.monotonic() > deadline:
                log.warning("%d table sinks still closing after the play stopped", len(sinks))
                break
            await asyncio.sleep(0.005)

    def abandon(self) -> None:
        """On cancellation: start closing every table sink and return at once."""
        for sink in self.sinks.values():
            sink.async_close()
        self.sinks.clear()
