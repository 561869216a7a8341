"""``tisink play``: wire a source (feed or workload), an engine and a sink into one run.

Without a sink URI the embedded broker is started and the run writes Simple JSON to it, so
``tisink play`` alone is a complete demonstration: generate, encode, produce, read back, verify.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import signal
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tisink.broker import start_broker
from tisink.codec.clock import Clock, FeedClock, WallClock
from tisink.codec.registry import get_protocol
from tisink.feed.errors import PlayError
from tisink.feed.inline import play_with_factory
from tisink.feed.reader import read_feed
from tisink.feed.records import FeedRecord
from tisink.feed.stats import PlayStats
from tisink.feed.workload import generate_records, throttled
from tisink.interrupt import StopRequest
from tisink.sink import ChangefeedConfig, SinkFactory
from tisink.summary import RunSummary
from tisink.verify import render_text, verify

log = logging.getLogger(__name__)

VERIFIABLE_SCHEMES = ("kafka", "file")
DEFAULT_TOPIC = "tidb-cdc"
DEFAULT_WORKLOAD = "demo"


@dataclass(frozen=True)
class PlayOptions:
    """What ``tisink play`` was asked to do; ``sink_uri`` None means the embedded broker."""

    feed: Path | None = None
    workload: str | None = None
    sink_uri: str | None = None
    config_path: Path | None = None
    engine: str = "spark"
    master: str = "local[*]"
    seed: int = 0
    rows: int | None = None
    rate: float | None = None
    feed_clock: bool = False
    verify_after: bool = True
    epoch_ms: int | None = None

    def __post_init__(self) -> None:
        """Numbers that cannot mean anything fail before anything starts."""
        if self.feed is not None and self.workload is not None:
            raise ValueError("give --feed or --workload, not both")
        if self.rows is not None and self.rows <= 0:
            raise ValueError(f"--rows must be positive, got {self.rows}")
        if self.rate is not None and not (math.isfinite(self.rate) and self.rate > 0):
            raise ValueError(f"--rate must be a positive number of rows/s, got {self.rate}")
        if self.epoch_ms is not None and self.epoch_ms <= 0:
            raise ValueError(f"--epoch-ms must be positive, got {self.epoch_ms}")


def run_play(
    options: PlayOptions,
    on_progress: Callable[[PlayStats], None] | None = None,
    stop: StopRequest | None = None,
) -> RunSummary:
    """Play, then (for a stream in Kafka or files whose protocol has a decoder) read it back
    with verify. ``stop``: a request that ends the source early (the inline engine's Ctrl-C);
    the summary then names the signal and is not verified."""
    stop = stop or StopRequest()
    with _sink_uri(options.sink_uri) as sink_uri:
        if options.engine == "spark":
            summary = _play_spark(options, sink_uri)
        else:
            summary = _play_inline(options, sink_uri, on_progress, stop)
        if stop.signum is not None:
            summary.stopped_by = signal.Signals(stop.signum).name
            return summary
        config = ChangefeedConfig.from_toml(options.config_path) if options.config_path else None
        factory = SinkFactory(sink_uri, config)
        if options.verify_after and _verifiable(factory):
            report = verify(sink_uri, config_path=options.config_path)
            summary.verified = report.ok
            if not report.ok:
                log.error("verify found problems:\n%s", render_text(report))
    return summary


@contextlib.contextmanager
def _sink_uri(sink_uri: str | None) -> Iterator[str]:
    if sink_uri is not None:
        yield sink_uri
        return
    with start_broker() as broker:
        log.info("embedded broker on %s", broker.bootstrap)
        yield f"kafka://{broker.bootstrap}/{DEFAULT_TOPIC}?protocol=simple&partition-num=3"


def _verifiable(factory: SinkFactory) -> bool:
    """A Kafka or file sink whose protocol has a decoder."""
    protocol = factory.protocol
    return (
        factory.scheme in VERIFIABLE_SCHEMES
        and protocol is not None
        and get_protocol(protocol).new_decoder is not None
    )


def _play_spark(options: PlayOptions, sink_uri: str) -> RunSummary:
    from tisink.feed.spark import run_spark_play

    result = run_spark_play(
        feed_path=str(options.feed) if options.feed else None,
        workload=None if options.feed else (options.workload or DEFAULT_WORKLOAD),
        seed=options.seed,
        rows=options.rows,
        sink_uri=sink_uri,
        config_path=str(options.config_path) if options.config_path else None,
        master=options.master,
        feed_clock=options.feed_clock,
        rate=options.rate,
        epoch_ms=options.epoch_ms,
    )
    fields = RunSummary.__dataclass_fields__
    summary = RunSummary(**{k: v for k, v in result.items() if k in fields and k != "verified"})
    summary.engine = "spark"
    return summary


def _play_inline(
    options: PlayOptions,
    sink_uri: str,
    on_progress: Callable[[PlayStats], None] | None,
    stop: StopRequest,
) -> RunSummary:
    config = ChangefeedConfig.from_toml(options.config_path) if options.config_path else None
    clock: Clock = FeedClock() if options.feed_clock else WallClock()
    factory = SinkFactory(sink_uri, config, clock=clock)
    if options.feed is not None:
        records: Iterable[FeedRecord] = read_feed(options.feed)
    else:
        workload = options.workload or DEFAULT_WORKLOAD
        records = generate_records(workload, options.seed, options.rows)
    records = stop.stoppable(throttled(records, options.rate))
    return asyncio.run(_play(records, factory, on_progress))


async def _play(
    records: Iterable[FeedRecord],
    factory: SinkFactory,
    on_progress: Callable[[PlayStats], None] | None,
) -> RunSummary:
    started = time.perf_counter()
    try:
        stats = await play_with_factory(records, factory, on_progress=on_progress)
    except PlayError as err:
        log.error("play stopped: %s; last checkpoint ts %d", err.cause, err.last_checkpoint_ts)
        raise
    summary = RunSummary(
        rows=stats.rows,
        ddl=stats.ddl,
        checkpoint_ts=stats.checkpoint_ts,
        sink_uri=factory.uri.redacted(),
        engine="inline",
    )
    for sink_stats in stats.sink_stats:
        summary.add_sink_stats(sink_stats)
    summary.finish(time.perf_counter() - started)
    return summary
