"""The inline engine: the player on this process's event loop (``tisink play --engine inline``).

It plays a whole feed with the watermark policy's points (``feed/watermarks.py``) added; a Spark
partition owner plays the same points from the plan, so both engines write the same bytes.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from tisink.core.clock import Clock, ObservingClock
from tisink.ddlsink.base import DDLSink
from tisink.eventsink.base import EventSink
from tisink.eventsink.capabilities import ReportsStats
from tisink.feed.driver import MakeTableSink, TableSinkLike
from tisink.feed.errors import PlayError
from tisink.feed.format.records import FeedRecord
from tisink.feed.pacing import Pacer
from tisink.feed.player import DEFAULT_WATERMARK_INTERVAL_MS, Player
from tisink.feed.stats import PlayStats
from tisink.feed.watermarks import interval_end_ts, record_ts, with_watermark_points


class SinkFactoryLike(Protocol):
    """What ``sink.SinkFactory`` offers, as far as a play needs it."""

    clock: Clock

    async def create_event_sink(self) -> EventSink[Any]: ...

    async def create_ddl_sink(self) -> DDLSink: ...

    def create_table_sink(
        self, table_id: int, event_sink: EventSink[Any], start_ts: int = 0
    ) -> TableSinkLike: ...


async def play_inline(
    records: Iterable[FeedRecord],
    event_sink: EventSink[Any],
    ddl_sink: DDLSink,
    make_table_sink: MakeTableSink,
    *,
    watermark_interval_ms: int = DEFAULT_WATERMARK_INTERVAL_MS,
    **options: Any,
) -> PlayStats:
    """Play a feed's ``records`` with the watermark policy through table sinks made by
    ``make_table_sink``; the caller owns (and closes) the event and DDL sinks. ``options`` are
    ``Player``'s (clock, cadence, pacer, on_progress). Raises PlayError on a bad record or a
    sink failure."""
    player = Player(
        event_sink, ddl_sink, make_table_sink, interval_ms=watermark_interval_ms, **options
    )
    return await player.play(with_watermark_points(records, watermark_interval_ms))


async def play_with_factory(
    records: Iterable[FeedRecord],
    factory: SinkFactoryLike,
    *,
    clock: Clock | None = None,
    on_progress: Callable[[PlayStats], None] | None = None,
    pacer: Pacer | None = None,
    watermark_interval_ms: int = DEFAULT_WATERMARK_INTERVAL_MS,
    **options: int,
) -> PlayStats:
    """Play ``records`` (a feed read with ``read_feed`` or a generated workload) into sinks made
    by ``factory``, closing them afterwards and keeping their ``stats()`` in the result.
    ``clock`` defaults to the factory's own; a feed clock starts at the end of the first
    record's interval before any sink exists, as a Spark owner's does, so timers agree."""
    clock = clock if clock is not None else factory.clock
    records = iter(records)
    first = next(records, None)
    if first is not None:
        if isinstance(clock, ObservingClock):
            clock.observe_ts(interval_end_ts(record_ts(first) - 1, watermark_interval_ms))
        records = itertools.chain([first], records)
    event_sink = await factory.create_event_sink()
    ddl_sink: DDLSink | None = None
    stats: PlayStats | None = None
    try:
        ddl_sink = await factory.create_ddl_sink()
        stats = await play_inline(
            records,
            event_sink,
            ddl_sink,
            lambda table_id: factory.create_table_sink(table_id, event_sink),
            clock=clock,
            on_progress=on_progress,
            pacer=pacer,
            watermark_interval_ms=watermark_interval_ms,
            **options,
        )
    except PlayError as err:
        stats = err.stats  # a failed play's summary still counts what the sinks delivered
        raise
    finally:
        await event_sink.close()
        if ddl_sink is not None:
            await ddl_sink.close()
        for sink in (event_sink, ddl_sink):
            if stats is not None and isinstance(sink, ReportsStats):
                stats.sink_stats.append(sink.stats())
    return stats
