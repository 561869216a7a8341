"""The inline engine: a player on this process's event loop (``tisink play --engine inline``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from tisink.core.clock import Clock
from tisink.ddlsink.base import DDLSink
from tisink.eventsink.base import EventSink
from tisink.feed.errors import PlayError
from tisink.feed.pacing import Pacer
from tisink.feed.player import (
    DEFAULT_RESOLVE_EVERY_BYTES,
    DEFAULT_RESOLVE_EVERY_ROWS,
    DEFAULT_WATERMARK_INTERVAL_MS,
    MakeTableSink,
    Player,
    TableSinkLike,
)
from tisink.feed.records import FeedRecord
from tisink.feed.stats import PlayStats


class SinkFactoryLike(Protocol):
    """What ``sink.SinkFactory`` offers, as far as a play needs it."""

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
    resolve_every_rows: int = DEFAULT_RESOLVE_EVERY_ROWS,
    resolve_every_bytes: int = DEFAULT_RESOLVE_EVERY_BYTES,
    watermark_interval_ms: int = DEFAULT_WATERMARK_INTERVAL_MS,
    clock: Clock | None = None,
    on_progress: Callable[[PlayStats], None] | None = None,
    pacer: Pacer | None = None,
) -> PlayStats:
    """Play ``records`` through table sinks made by ``make_table_sink``; the caller owns (and
    closes) the event and DDL sinks. ``pacer`` holds the play to a rate. Raises PlayError on a
    bad record or a sink failure."""
    player = Player(
        event_sink,
        ddl_sink,
        make_table_sink,
        resolve_every_rows=resolve_every_rows,
        resolve_every_bytes=resolve_every_bytes,
        watermark_interval_ms=watermark_interval_ms,
        clock=clock,
        on_progress=on_progress,
        pacer=pacer,
    )
    return await player.play(records)


async def play_with_factory(
    records: Iterable[FeedRecord],
    factory: SinkFactoryLike,
    *,
    clock: Clock | None = None,
    on_progress: Callable[[PlayStats], None] | None = None,
    pacer: Pacer | None = None,
    **options: int,
) -> PlayStats:
    """Play ``records`` (a feed read with ``read_feed`` or a generated workload) into sinks made
    by ``factory``, closing them afterwards and keeping their ``stats()`` in the result.
    ``clock`` defaults to the factory's own, so a FeedClock given to the factory follows the
    feed; ``options`` are play_inline's cadence settings."""
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
            clock=clock if clock is not None else getattr(factory, "clock", None),
            on_progress=on_progress,
            pacer=pacer,
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
            report = getattr(sink, "stats", None)
            if stats is not None and callable(report):
                stats.sink_stats.append(report())
    return stats
