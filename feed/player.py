"""The player both engines run: feed records into table sinks and a DDL sink (DESIGN.md, "How
data flows").

The inline engine plays a whole feed (``with_watermark_points`` adds the policy's points); a
Spark partition owner plays its partition's rows merged with the plan's DDLs and the same
points. Either way the player does the same thing with each record:

- a row goes to the table-sink driver in commit order; at a commit boundary the driver resolves
  when N rows or bytes are pending (TiCDC's sink manager cadence);
- a DDL at commitTs C is written once every row before C, of every table, is acknowledged
  (drain to C-1), and before any later row is handed over; TRUNCATE and DROP close the table;
- a watermark point W (``WatermarkPoint``, or a ``resolved`` record) is written once
  everything at or below W is acknowledged, carrying W; then a feed clock moves to the end of
  W's interval and the event sink runs its timers (BOOTSTRAP cadence, HEARTBEATs) right there;
- ``RowsStart`` sends ``send-all-bootstrap-at-start`` BOOTSTRAPs; ``BootstrapAt`` (a Spark
  owner's share of the feed's BOOTSTRAP cadence) writes one between the transactions around it.

So what each partition receives depends on the records alone, never on timing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from typing import Any

from tisink.core.clock import Clock, ObservingClock
from tisink.core.errors import TisinkError
from tisink.ddlsink.base import BootstrapsAtStart, DDLSink
from tisink.eventsink.base import EventSink
from tisink.eventsink.capabilities import RunsTimers
from tisink.feed.driver import (
    DEFAULT_RESOLVE_EVERY_BYTES,
    DEFAULT_RESOLVE_EVERY_ROWS,
    MakeTableSink,
    OrderRows,
    TableSinkDriver,
)
from tisink.feed.errors import FeedError, PlayError
from tisink.feed.format.records import FeedDDL, FeedResolved, FeedRow
from tisink.feed.live_tables import LiveTables, RunningTables
from tisink.feed.pacing import Pacer
from tisink.feed.play_records import BootstrapAt, PlayRecord, RowsStart, WatermarkPoint
from tisink.feed.stats import PlayStats
from tisink.feed.watermarks import interval_end_ts
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent

YIELD_EVERY_ROWS = 1024
"""Rows between two turns the player gives the event loop when nothing else awaits."""
DEFAULT_WATERMARK_INTERVAL_MS = 1000
"""TiCDC's owner checks the checkpoint on a 1 s ticker and writes it only when it advanced."""


class Player:
    """Plays one stream of play records into table sinks and a DDL sink. Single use.

    ``live_tables`` says which tables exist at a ts (a WATERMARK's topics, the bootstraps at
    start); by default the player follows the DDLs it plays. ``order_rows`` puts a
    transaction's rows in the order its table sink must get them (a Spark owner's UPDATEs that
    stage one split). ``on_progress`` is called after each watermark point.
    """

    def __init__(
        self,
        event_sink: EventSink[Any],
        ddl_sink: DDLSink,
        make_table_sink: MakeTableSink,
        *,
        clock: Clock | None = None,
        interval_ms: int = DEFAULT_WATERMARK_INTERVAL_MS,
        live_tables: LiveTables | None = None,
        order_rows: OrderRows | None = None,
        resolve_every_rows: int = DEFAULT_RESOLVE_EVERY_ROWS,
        resolve_every_bytes: int = DEFAULT_RESOLVE_EVERY_BYTES,
        pacer: Pacer | None = None,
        on_progress: Callable[[PlayStats], None] | None = None,
    ) -> None:
        self.stats = PlayStats()
        self._event_sink = event_sink
        self._ddl_sink = ddl_sink
        self._driver = TableSinkDriver(
            event_sink,
            make_table_sink,
            resolve_every_rows=resolve_every_rows,
            resolve_every_bytes=resolve_every_bytes,
            order_rows=order_rows,
        )
        self._clock = clock if isinstance(clock, ObservingClock) else None
        self._interval_ms = interval_ms
        self._running = RunningTables() if live_tables is None else None
        self._live_tables = live_tables or self._running.at  # type: ignore[union-attr]
        self._timers = event_sink if isinstance(event_sink, RunsTimers) else None
        self._pacer = pacer
        self._on_progress = on_progress
        self._paced = False
        self._paced_at = 0
        self._yielded_at = 0
        self._watermark = 0

    async def play(self, records: Iterable[PlayRecord]) -> PlayStats:
        """Play ``records`` to the end; PlayError (with the last checkpoint) on any error."""
        started = time.perf_counter()
        driver = self._driver
        try:
            stats, add_row, unpaced = self.stats, driver.add_row, self._pacer is None
            for record in records:
                kind = type(record)
                if kind is FeedRow:
                    row: RowChangedEvent = record.row  # type: ignore[union-attr]
                    ts = row.commit_ts
                    if ts != driver.txn_ts:
                        if (  # most boundaries have nothing to do: no coroutine for them
                            unpaced
                            and ts > driver.txn_ts
                            and stats.rows - self._yielded_at < YIELD_EVERY_ROWS
                            and not driver.cadence_due()
                        ):
                            driver.txn_ts = ts
                        else:
                            await self._boundary(record)  # type: ignore[arg-type]
                    add_row(row)
                    stats.rows += 1
                    stats.bytes += row.approximate_size
                elif kind is FeedDDL:
                    await self._ddl(record)  # type: ignore[arg-type]
                elif kind is WatermarkPoint:
                    await self._watermark_at(record.ts)  # type: ignore[union-attr]
                elif kind is FeedResolved:
                    self.stats.resolved += 1
                    await self._watermark_at(record.ts)  # type: ignore[union-attr]
                elif kind is RowsStart:
                    await self._rows_start(record.ts)  # type: ignore[union-attr]
                elif kind is BootstrapAt:
                    at: BootstrapAt = record  # type: ignore[assignment]
                    driver.add_bootstrap(at.ts, at.table_id, at.send)
                else:
                    raise TypeError(f"not a play record: {record!r}")
            if self._pacer is not None and self.stats.rows:
                self._pacer.finish(self.stats.rows)
            await driver.drain(max(driver.txn_ts, driver.resolved))
            await driver.close()
        except TisinkError as err:
            self.stats.checkpoint_ts = max(self._watermark, driver.checkpoint())
            await driver.abort()
            raise PlayError(err, self.stats.checkpoint_ts, self.stats) from err
        except BaseException:
            driver.abandon()
            raise
        finally:
            self.stats.elapsed_s = time.perf_counter() - started
            self.stats.tables = max(self.stats.tables, driver.opened)
        self.stats.checkpoint_ts = max(self._watermark, driver.resolved)
        return self.stats

    async def _boundary(self, record: FeedRow) -> None:
        """The first row of a new commitTs: everything before it is complete, so this is the
        place to resolve (the cadence), to pace, and now and then to let the sinks run."""
        driver = self._driver
        ts = record.row.commit_ts
        if ts < driver.txn_ts:
            where = record.source
            raise FeedError(
                f"commitTs {ts} goes back (previous {driver.txn_ts})",
                file=where.file if where else None,
                line=where.line if where else None,
            )
        rows = self.stats.rows
        if self._pacer is not None:
            await self._pace(self._pacer, rows)
        elif rows - self._yielded_at >= YIELD_EVERY_ROWS:
            self._yielded_at = rows
            await asyncio.sleep(0)  # the event sink's worker and acks run meanwhile
        if driver.cadence_due():
            await driver.resolve(driver.txn_ts)
        driver.txn_ts = ts

    async def _pace(self, pacer: Pacer, rows: int) -> None:
        """Every ``pacer.chunk`` rows: wait for the schedule, handing every complete
        transaction to the event sink meanwhile."""
        if not self._paced:
            self._paced = True
            pacer.start()
        elif rows - self._paced_at >= pacer.chunk:
            self._paced_at = rows
            await pacer.pace(rows, self._hand_over)

    async def _hand_over(self) -> None:
        driver = self._driver
        if driver.txn_ts > driver.resolved:
            await driver.resolve(driver.txn_ts)

    async def _ddl(self, record: FeedDDL) -> None:
        ddl: DDLEvent = record.ddl
        driver = self._driver
        if ddl.commit_ts < driver.txn_ts:
            raise FeedError(
                f"commitTs {ddl.commit_ts} goes back (previous {driver.txn_ts})",
                file=record.source.file if record.source else None,
                line=record.source.line if record.source else None,
            )
        await driver.drain(ddl.commit_ts - 1)
        await self._ddl_sink.write_ddl_event(ddl)
        driver.txn_ts = ddl.commit_ts
        self.stats.ddl += 1
        if self._running is not None:
            self._running.apply(ddl)
        if ddl.ddl_type in (DDLType.TRUNCATE, DDLType.ERASE):
            gone = ddl.pre_table or ddl.table
            if gone is not None:
                await driver.close_tables([gone.table_id])

    async def _watermark_at(self, ts: int) -> None:
        if ts <= self._watermark:
            return
        driver = self._driver
        await driver.drain(ts)
        await self._ddl_sink.write_checkpoint_ts(ts, self._live_tables(ts))
        self._watermark = ts
        driver.txn_ts = max(driver.txn_ts, ts)
        self.stats.watermarks += 1
        self.stats.checkpoint_ts = ts
        if self._clock is not None:
            self._clock.observe_ts(interval_end_ts(ts, self._interval_ms))
            if self._timers is not None:
                await self._timers.run_timers()
        if self._on_progress is not None:
            self._on_progress(self.stats)

    async def _rows_start(self, ts: int) -> None:
        if isinstance(self._ddl_sink, BootstrapsAtStart):
            tables = self._live_tables(ts)
            if tables:
                await self._ddl_sink.write_bootstrap_at_start(tables)
