"""``tisink play``: wire a feed, a sink URI and a changefeed config into one inline play."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import Any

from codec.clock import Clock, FeedClock, WallClock
from feed.errors import PlayError
from feed.inline import play_inline
from feed.reader import read_feed
from feed.stats import PlayStats
from sink import ChangefeedConfig, SinkFactory
from tisink.summary import RunSummary
from tisink.verify import render_text, verify

log = logging.getLogger(__name__)


VERIFIABLE_SCHEMES = ("kafka", "file")


def run_play(
    feed: Path,
    sink_uri: str,
    config_path: Path | None,
    *,
    feed_clock: bool = False,
    verify_after: bool = True,
) -> RunSummary:
    """Play ``feed`` into ``sink_uri``, then (for a Simple stream in Kafka or files) read it back
    with ``tisink verify``; returns the run summary or raises a TisinkError."""
    config = ChangefeedConfig.from_toml(config_path) if config_path else None
    clock: Clock = FeedClock() if feed_clock else WallClock()
    factory = SinkFactory(sink_uri, config, clock=clock)
    summary = asyncio.run(_play(feed, factory))
    if verify_after and _verifiable(factory):
        report = verify(sink_uri, config_path=config_path)
        summary.verified = report.ok
        if not report.ok:
            log.error("verify found problems:\n%s", render_text(report))
    return summary


def _verifiable(factory: SinkFactory) -> bool:
    protocol = factory.config.protocol or ("simple" if factory.scheme == "kafka" else None)
    return factory.scheme in VERIFIABLE_SCHEMES and protocol == "simple"


async def _play(feed: Path, factory: SinkFactory) -> RunSummary:
    summary = RunSummary(sink_uri=factory.uri.redacted())
    started = time.perf_counter()
    event_sink = await factory.create_event_sink()
    ddl_sink: Any = None
    try:
        ddl_sink = await factory.create_ddl_sink()
        try:
            stats = await play_inline(
                read_feed(feed),
                event_sink,
                ddl_sink,
                lambda table_id: factory.create_table_sink(table_id, event_sink),
                clock=factory.clock,
            )
        except PlayError as err:
            log.error("play stopped: %s; last checkpoint ts %d", err.cause, err.last_checkpoint_ts)
            raise
        _fill(summary, stats)
    finally:
        await event_sink.close()
        if ddl_sink is not None:
            await ddl_sink.close()
    for sink in (event_sink, ddl_sink):
        stats_of = getattr(sink, "stats", None)
        summary.add_sink_stats(stats_of() if callable(stats_of) else None)
    summary.finish(time.perf_counter() - started)
    return summary


def _fill(summary: RunSummary, stats: PlayStats) -> None:
    summary.rows = stats.rows
    summary.ddl = stats.ddl
    summary.checkpoint_ts = stats.checkpoint_ts
