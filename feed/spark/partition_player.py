"""The partition owner's player: one partition's events, in commit order, into its sinks.

A Spark task owns one (topic, partition) and gets that partition's rows, the DDLs of its topic,
and the watermark points (every watermark interval of commit time, and the feed's ``resolved``
records), ordered by (commitTs, feed order). It plays them so that what the partition receives
depends on those events alone, never on timing:

- rows go to their table sinks, which flush on a resolved ts at commit boundaries every N rows
  or bytes, as the inline player does;
- a DDL at commitTs C is written once every row of the partition with commitTs < C, of every
  table, is acknowledged, and before any later row is handed over;
- a WATERMARK W is written once every message of the partition with commitTs <= W is
  acknowledged (TiCDC's checkpoint: nothing at or below it is still coming);
- under the feed clock, time moves only at those watermarks, to the end of the next interval,
  so ``buildTs`` and the bootstrap and heartbeat timers read the same time whatever the timing;
  right after a move, an empty transaction makes the MQ sink run its timers at that very place.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from tisink.core.clock import Clock
from tisink.core.errors import TisinkError
from tisink.ddlsink.base import DDLSink
from tisink.eventsink.base import EventSink
from tisink.eventsink.errors import SinkDeadError
from tisink.feed.errors import PlayError
from tisink.feed.pacing import Pacer
from tisink.feed.player import (
    DEFAULT_RESOLVE_EVERY_BYTES,
    DEFAULT_RESOLVE_EVERY_ROWS,
    MakeTableSink,
    TableSinkLike,
    bootstrap_at_start,
)
from tisink.feed.records import FeedDDL, FeedResolved, FeedRow
from tisink.feed.spark.plan import PartitionRecord, RowsStart
from tisink.feed.spark.routing import in_split_order
from tisink.feed.spark.sink_clock import interval_end_ts, run_sink_timers
from tisink.feed.stats import PlayStats
from tisink.model.events import DDLType, ResolvedTs, RowChangedEvent
from tisink.model.table import TableInfo

LiveTables = Callable[[int], list[TableInfo]]
"""The tables that exist at a commit ts (the watermark's topics, the bootstraps at start)."""


class PartitionPlayer:
    """Plays one partition's records into table sinks and a DDL sink. Single use."""

    def __init__(
        self,
        event_sink: EventSink[Any],
        ddl_sink: DDLSink,
        make_table_sink: MakeTableSink,
        *,
        live_tables: LiveTables,
        clock: Clock,
        interval_ms: int,
        split_txns: frozenset[tuple[int, int]] = frozenset(),
        run_timers: bool = False,
        resolve_every_rows: int = DEFAULT_RESOLVE_EVERY_ROWS,
        resolve_every_bytes: int = DEFAULT_RESOLVE_EVERY_BYTES,
        pacer: Pacer | None = None,
    ) -> None:
        self.stats = PlayStats()
        self._pacer = pacer
        self._paced_rows = 0
        self._since_pace = 0
        self._event_sink = event_sink
        self._ddl_sink = ddl_sink
        self._make_table_sink = make_table_sink
        self._live_tables = live_tables
        self._observe: Callable[[int], None] | None = getattr(clock, "observe_ts", None)
        self._interval_ms = interval_ms
        self._split_txns = split_txns
        self._run_timers = run_timers
        self._every_rows = resolve_every_rows
        self._every_bytes = resolve_every_bytes
        self._wait_capacity = getattr(event_sink, "wait_for_capacity", None)
        self._sinks: dict[int, TableSinkLike] = {}
        self._pending: dict[int, list[RowChangedEvent]] = {}
        self._txn_ts = 0
        self._resolved = 0
        self._watermark = 0
        self._since_rows = 0
        self._since_bytes = 0

    async def play(self, records: Iterable[PartitionRecord]) -> PlayStats:
        """Play ``records`` to the end; PlayError (with the last watermark) on any error."""
        pacer = self._pacer
        try:
            for record in records:
                kind = type(record)
                if kind is FeedRow:
                    if pacer is not None:
                        await self._pace(pacer, record.row.commit_ts)  # type: ignore[union-attr]
                    await self._row(record.row)  # type: ignore[union-attr]
                elif kind is FeedDDL:
                    await self._ddl(record)  # type: ignore[arg-type]
                elif kind is FeedResolved:
                    await self._watermark_at(record.ts)  # type: ignore[union-attr]
                elif kind is RowsStart:
                    await bootstrap_at_start(self._ddl_sink, self._live_tables(record.ts))  # type: ignore[union-attr]
                else:
                    raise TypeError(f"not a partition record: {record!r}")
            await self._drain(max(self._txn_ts, self._resolved))
            await self._close_tables(list(self._sinks))
        except TisinkError as err:
            self._abandon()
            raise PlayError(err, self._watermark, self.stats) from err
        except BaseException:
            self._abandon()
            raise
        self.stats.checkpoint_ts = max(self._watermark, self._resolved)
        return self.stats

    async def _row(self, row: RowChangedEvent) -> None:
        ts = row.commit_ts
        if ts != self._txn_ts:
            if self._since_rows >= self._every_rows or self._since_bytes >= self._every_bytes:
                await self._resolve(self._txn_ts)
            self._txn_ts = ts
        table_id = row.table.table_id
        batch = self._pending.get(table_id)
        if batch is None:
            self._pending[table_id] = [row]
        else:
            batch.append(row)
        self._since_rows += 1
        self._since_bytes += row.approximate_size

    async def _pace(self, pacer: Pacer, commit_ts: int) -> None:
        """Before taking a row: every ``pacer.chunk`` rows, at a commit boundary only (a txn
        whose UPDATE stage one split is put in order whole), wait for the schedule."""
        if self._paced_rows == 0:
            pacer.start()
        elif self._since_pace >= pacer.chunk and commit_ts != self._txn_ts:
            self._since_pace = 0
            await pacer.pace(self._paced_rows, self._hand_over)
        self._paced_rows += 1
        self._since_pace += 1

    async def _hand_over(self) -> None:
        """While the pacer waits at a commit boundary: every transaction so far goes to the
        event sink now."""
        if self._txn_ts > self._resolved:
            await self._resolve(self._txn_ts)

    async def _ddl(self, record: FeedDDL) -> None:
        ddl = record.ddl
        barrier = ddl.commit_ts - 1
        await self._drain(barrier)
        await self._ddl_sink.write_ddl_event(ddl)
        self._txn_ts = max(self._txn_ts, ddl.commit_ts)
        self.stats.ddl += 1
        if ddl.ddl_type in (DDLType.TRUNCATE, DDLType.ERASE):
            gone = ddl.pre_table or ddl.table
            if gone is not None:
                await self._close_tables([gone.table_id])

    async def _watermark_at(self, ts: int) -> None:
        if ts <= self._watermark:
            return
        await self._drain(ts)
        await self._ddl_sink.write_checkpoint_ts(ts, self._live_tables(ts))
        self._watermark = ts
        self._txn_ts = max(self._txn_ts, ts)
        self.stats.watermarks += 1
        if self._observe is not None:
            self._observe(interval_end_ts(ts, self._interval_ms))
            table = next(iter(self._live_tables(ts)), None)
            if self._run_timers and self._sinks and table is not None:
                await run_sink_timers(self._event_sink, table)

    def _flush(self) -> None:
        """Hand the batched rows to their table sinks (opening sinks for new tables); a
        transaction whose UPDATE the first stage split is put in TiCDC's order first."""
        for table_id, rows in self._pending.items():
            if self._split_txns:
                rows = in_split_order(table_id, rows, self._split_txns)
            sink = self._sinks.get(table_id)
            if sink is None:
                sink = self._sinks[table_id] = self._make_table_sink(table_id)
                if self._resolved:
                    sink.update_resolved_ts(ResolvedTs(self._resolved))
                self.stats.tables += 1
            sink.append_row_changed_events(rows)
        self._pending.clear()

    async def _resolve(self, ts: int) -> None:
        self._flush()
        self._since_rows = self._since_bytes = 0
        if ts <= self._resolved:
            return
        rts = ResolvedTs(ts)
        for sink in self._sinks.values():
            sink.update_resolved_ts(rts)
        self._resolved = ts
        if self._wait_capacity is not None:
            await self._wait_capacity()

    async def _drain(self, ts: int) -> None:
        """Resolve to ``ts`` and wait until every table's checkpoint reached it and nothing
        the event sink was given is still unacknowledged."""
        await self._resolve(ts)
        sinks = list(self._sinks.values())
        delay = 0.0
        while any(s.get_checkpoint_ts().resolved_mark < ts for s in sinks) or self._inflight():
            self._check_event_sink()
            await asyncio.sleep(delay)
            delay = min(delay * 2 or 0.0002, 0.001)
        self._check_event_sink()

    def _inflight(self) -> bool:
        return bool(getattr(self._event_sink, "inflight_bytes", 0))

    def _check_event_sink(self) -> None:
        error = self._event_sink.error
        if error is None:
            return
        if isinstance(error, TisinkError):
            raise error
        raise SinkDeadError(f"{self._event_sink.scheme} event sink failed: {error!r}") from error

    async def _close_tables(self, table_ids: Sequence[int]) -> None:
        for table_id in table_ids:
            sink = self._sinks.pop(table_id, None)
            if sink is not None:
                await sink.close()

    def _abandon(self) -> None:
        """After an error: close the table sinks without waiting for them."""
        for sink in self._sinks.values():
            sink.async_close()
        self._sinks.clear()
