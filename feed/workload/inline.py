"""The inline engine for workloads: generated records straight into ``play_inline``."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator

from codec.clock import Clock
from feed.inline import SinkFactoryLike, play_inline
from feed.records import FeedRecord, FeedRow
from feed.stats import PlayStats
from feed.workload.generator import generate_records
from feed.workload.scenario import Scenario


def throttled(records: Iterable[FeedRecord], rate: float | None) -> Iterator[FeedRecord]:
    """At most ``rate`` rows per second. It sleeps inside the iterator: the player awaits
    every few hundred rows, so the sinks' acknowledgements keep flowing between sleeps."""
    if not rate:
        yield from records
        return
    started = time.monotonic()
    rows = 0
    for record in records:
        if type(record) is FeedRow:
            rows += 1
            ahead = rows / rate - (time.monotonic() - started)
            if ahead > 0.01:
                time.sleep(ahead)
        yield record


async def play_workload_with_factory(
    scenario: Scenario | str | os.PathLike[str],
    seed: int,
    rows: int | None,
    factory: SinkFactoryLike,
    *,
    rate: float | None = None,
    clock: Clock | None = None,
    on_progress: Callable[[PlayStats], None] | None = None,
    **options: int,
) -> PlayStats:
    """Generate the workload and play it into sinks made by ``factory`` (closed afterwards);
    the workload twin of ``feed.inline.play_feed_with_factory``."""
    event_sink = await factory.create_event_sink()
    try:
        ddl_sink = await factory.create_ddl_sink()
        try:
            return await play_inline(
                throttled(generate_records(scenario, seed, rows), rate),
                event_sink,
                ddl_sink,
                lambda table_id: factory.create_table_sink(table_id, event_sink),
                clock=clock if clock is not None else getattr(factory, "clock", None),
                on_progress=on_progress,
                **options,
            )
        finally:
            await ddl_sink.close()
    finally:
        await event_sink.close()
