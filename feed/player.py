"""The player: drives table sinks from feed records (DESIGN.md, "How data flows").

Rows go to their table's sink in commit order, batched per table. Resolved ts are issued only
at commitTs boundaries (once the next record's commitTs is larger), every N rows or bytes like
TiCDC's sink manager, and on ``resolved`` records. A DDL at commitTs C is a barrier: every table
is resolved to C-1 and the DDL is written only once its table's checkpoint reached C-1, i.e.
all its earlier rows are acknowledged. Watermarks go to the DDL sink when the checkpoint that
every table passed advanced, on a clock cadence and once at the end.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from tisink.core.clock import Clock, WallClock
from tisink.core.errors import TisinkError
from tisink.ddlsink.base import DDLSink
from tisink.eventsink.base import EventSink
from tisink.eventsink.errors import SinkDeadError
from tisink.feed.errors import FeedError, PlayError
from tisink.feed.pacing import Pacer
from tisink.feed.records import FeedDDL, FeedRecord, FeedResolved, FeedRow
from tisink.feed.stats import PlayStats
from tisink.model.events import DDLEvent, DDLType, ResolvedTs, RowChangedEvent
from tisink.model.table import TableInfo

log = logging.getLogger(__name__)

DEFAULT_RESOLVE_EVERY_ROWS = 4096
DEFAULT_RESOLVE_EVERY_BYTES = 256 * 1024
"""TiCDC's sink manager advances a table sink every ~256 KiB (defaultMaxUpdateIntervalSize)."""
DEFAULT_WATERMARK_INTERVAL_MS = 1000
"""TiCDC's owner checks the checkpoint on a 1 s ticker and writes it only when it advanced."""
YIELD_EVERY_ROWS = 1024
ABORT_CLOSE_TIMEOUT_S = 5.0


class TableSinkLike(Protocol):
    """The part of ``tablesink.TableSink`` the player uses."""

    def append_row_changed_events(self, rows: Sequence[RowChangedEvent]) -> None: ...

    def update_resolved_ts(self, rts: ResolvedTs) -> None: ...

    def get_checkpoint_ts(self) -> ResolvedTs: ...

    async def close(self) -> None: ...

    def async_close(self) -> bool: ...


MakeTableSink = Callable[[int], TableSinkLike]


async def bootstrap_at_start(ddl_sink: DDLSink, tables: Sequence[TableInfo]) -> None:
    """``send-all-bootstrap-at-start``: the tables that exist when the changefeed starts
    replicating rows (for a feed: those its DDLs announced before its first row) get their
    BOOTSTRAP through the DDL sink first. DDL sinks without bootstraps ignore it."""
    start = getattr(ddl_sink, "write_bootstrap_at_start", None)
    if start is not None and tables:
        await start(tables)


class Player:
    """Plays one stream of feed records into table sinks and a DDL sink. Single use."""

    def __init__(
        self,
        event_sink: EventSink[Any],
        ddl_sink: DDLSink,
        make_table_sink: MakeTableSink,
        *,
        resolve_every_rows: int = DEFAULT_RESOLVE_EVERY_ROWS,
        resolve_every_bytes: int = DEFAULT_RESOLVE_EVERY_BYTES,
        watermark_interval_ms: int = DEFAULT_WATERMARK_INTERVAL_MS,
        clock: Clock | None = None,
        on_progress: Callable[[PlayStats], None] | None = None,
        pacer: Pacer | None = None,
    ) -> None:
        self.stats = PlayStats()
        self._pacer = pacer
        self._event_sink = event_sink
        self._ddl_sink = ddl_sink
        self._make_table_sink = make_table_sink
        self._every_rows = resolve_every_rows
        self._every_bytes = resolve_every_bytes
        self._interval_ms = watermark_interval_ms
        self._clock = clock or WallClock()
        # a FeedClock follows the commit ts the player reaches
        self._observe: Callable[[int], None] | None = getattr(clock, "observe_ts", None)
        self._wait_capacity = getattr(event_sink, "wait_for_capacity", None)
        self._on_progress = on_progress
        self._sinks: dict[int, TableSinkLike] = {}
        self._tables: dict[int, TableInfo] = {}
        self._seen: set[int] = set()
        self._pending: dict[int, list[RowChangedEvent]] = {}
        self._txn_ts = 0
        self._resolved = 0
        self._watermark = 0
        self._since_rows = 0
        self._since_bytes = 0
        self._last_check_ms: int | None = None
        self._started = False

    async def play(self, records: Iterable[FeedRecord]) -> PlayStats:
        """Play ``records`` to the end; PlayError (with the last checkpoint) on any error."""
        started = time.perf_counter()
        try:
            await self._play(records)
            await self._finish()
        except TisinkError as err:
            checkpoint = await self._abort()
            raise PlayError(err, checkpoint, self.stats) from err
        except BaseException:
            for sink in self._sinks.values():
                sink.async_close()
            raise
        finally:
            self.stats.elapsed_s = time.perf_counter() - started
        return self.stats

    async def _play(self, records: Iterable[FeedRecord]) -> None:
        stats, pending, pacer = self.stats, self._pending, self._pacer
        txn_ts = self._txn_ts
        since_yield = 0
        yield_every = YIELD_EVERY_ROWS if pacer is None else min(YIELD_EVERY_ROWS, pacer.chunk)
        for record in records:
            if type(record) is FeedRow:
                row = record.row
                if not self._started:
                    self._started = True
                    await bootstrap_at_start(self._ddl_sink, list(self._tables.values()))
                    if pacer is not None:
                        pacer.start()
                if row.commit_ts != txn_ts:
                    await self._boundary(row.commit_ts, record)
                    txn_ts = row.commit_ts
                batch = pending.get(row.table.table_id)
                if batch is None:
                    pending[row.table.table_id] = [row]
                else:
                    batch.append(row)
                stats.rows += 1
                stats.bytes += row.approximate_size
                self._since_rows += 1
                self._since_bytes += row.approximate_size
                since_yield += 1
                if since_yield >= yield_every:
                    since_yield = 0
                    if pacer is None:
                        await asyncio.sleep(0)
                    else:
                        await pacer.pace(stats.rows, self._hand_over)
            elif type(record) is FeedDDL:
                await self._boundary(record.commit_ts, record)
                txn_ts = self._txn_ts
                await self._ddl(record.ddl)
            elif type(record) is FeedResolved:
                stats.resolved += 1
                await self._resolve(record.ts)
            else:
                raise TypeError(f"not a feed record: {record!r}")
        if pacer is not None:
            pacer.finish(stats.rows)

    async def _hand_over(self) -> None:
        """While the pacer waits: every complete transaction (commitTs below the current one)
        goes to the event sink now."""
        if self._txn_ts - 1 > self._resolved:
            await self._resolve(self._txn_ts - 1)

    async def _boundary(self, next_ts: int, record: FeedRow | FeedDDL) -> None:
        """Move to commitTs ``next_ts``: everything before it is now complete, so this is the
        place to resolve when the cadence says so."""
        if next_ts < self._txn_ts:
            where = record.source
            raise FeedError(
                f"commitTs {next_ts} goes back (previous {self._txn_ts})",
                file=where.file if where else None,
                line=where.line if where else None,
            )
        if next_ts == self._txn_ts:
            return
        if self._since_rows >= self._every_rows or self._since_bytes >= self._every_bytes:
            await self._resolve(self._txn_ts)
        self._txn_ts = next_ts
        if self._observe is not None:
            self._observe(next_ts)

    def _flush(self) -> None:
        """Hand the batched rows to their table sinks (opening sinks for new tables)."""
        for table_id, rows in self._pending.items():
            sink = self._sinks.get(table_id) or self._open(table_id, rows[0].table)
            sink.append_row_changed_events(rows)
        self._pending.clear()

    def _open(self, table_id: int, table: TableInfo) -> TableSinkLike:
        sink = self._make_table_sink(table_id)
        if self._resolved:
            # no rows of it are pending below this ts, so its checkpoint may start there
            sink.update_resolved_ts(ResolvedTs(self._resolved))
        self._sinks[table_id] = sink
        self._tables.setdefault(table_id, table)
        self._seen.add(table_id)
        self.stats.tables = len(self._seen)
        return sink

    async def _resolve(self, ts: int) -> None:
        self._flush()
        if ts <= self._resolved:
            return
        rts = ResolvedTs(ts)
        for sink in self._sinks.values():
            sink.update_resolved_ts(rts)
        self._resolved = ts
        self._since_rows = self._since_bytes = 0
        if self._wait_capacity is not None:
            await self._wait_capacity()
        await self._maybe_watermark(force=False)

    async def _ddl(self, ddl: DDLEvent) -> None:
        barrier = ddl.commit_ts - 1
        await self._resolve(barrier)
        await self._wait(self._ddl_subjects(ddl), barrier)
        await self._ddl_sink.write_ddl_event(ddl)
        self.stats.ddl += 1
        if ddl.ddl_type in (DDLType.TRUNCATE, DDLType.ERASE):
            gone = ddl.pre_table or ddl.table
            if gone is not None:
                await self._close_table(gone.table_id)
        if ddl.table is not None and ddl.ddl_type is not DDLType.ERASE:
            self._tables[ddl.table.table_id] = ddl.table
            self._seen.add(ddl.table.table_id)
            self.stats.tables = len(self._seen)

    def _ddl_subjects(self, ddl: DDLEvent) -> list[TableSinkLike]:
        """The table sinks a DDL must wait for: its tables, or all of them for a DDL without
        a table (DROP DATABASE and other QUERY DDLs may touch any)."""
        ids = {t.table_id for t in (ddl.table, ddl.pre_table) if t is not None}
        if not ids:
            return list(self._sinks.values())
        return [self._sinks[i] for i in ids if i in self._sinks]

    async def _close_table(self, table_id: int) -> None:
        self._tables.pop(table_id, None)
        sink = self._sinks.pop(table_id, None)
        if sink is not None:
            await sink.close()

    async def _wait(self, sinks: Sequence[TableSinkLike], target: int) -> None:
        """Wait until every sink's checkpoint reached ``target`` (all rows <= it acked)."""
        delay = 0.0
        while any(s.get_checkpoint_ts().resolved_mark < target for s in sinks):
            error = self._event_sink.error
            if error is not None:
                if isinstance(error, TisinkError):
                    raise error
                raise SinkDeadError(
                    f"{self._event_sink.scheme} event sink failed: {error!r}"
                ) from error
            await asyncio.sleep(delay)
            delay = min(delay * 2 or 0.0002, 0.005)

    def _global_checkpoint(self) -> int:
        ts = self._resolved
        for sink in self._sinks.values():
            mark = sink.get_checkpoint_ts().resolved_mark
            if mark < ts:
                ts = mark
        return ts

    async def _maybe_watermark(self, *, force: bool) -> None:
        now = self._clock.now_ms()
        last = self._last_check_ms
        if not force and last is not None and now - last < self._interval_ms:
            return
        self._last_check_ms = now
        ts = self._global_checkpoint()
        self.stats.checkpoint_ts = ts
        if ts > self._watermark:
            await self._ddl_sink.write_checkpoint_ts(ts, list(self._tables.values()))
            self._watermark = ts
            self.stats.watermarks += 1
        if self._on_progress is not None:
            self._on_progress(self.stats)

    async def _finish(self) -> None:
        final = max(self._txn_ts, self._resolved)
        await self._resolve(final)
        await self._wait(list(self._sinks.values()), final)
        await self._maybe_watermark(force=True)
        sinks = list(self._sinks.values())
        self._sinks.clear()
        for sink in sinks:
            await sink.close()

    async def _abort(self) -> int:
        """Stop after an error: no more rows or resolved ts, close the table sinks without
        blocking on them for long, and say how far every table got."""
        checkpoint = max(self._watermark, self._global_checkpoint())
        self.stats.checkpoint_ts = checkpoint
        sinks = list(self._sinks.values())
        self._sinks.clear()
        deadline = time.monotonic() + ABORT_CLOSE_TIMEOUT_S
        while sinks := [s for s in sinks if not s.async_close()]:
            if time.monotonic() > deadline:
                log.warning("%d table sinks still closing after the play stopped", len(sinks))
                break
            await asyncio.sleep(0.005)
        return checkpoint
