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
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tisink.broker import start_broker
from tisink.codec.registry import get_protocol
from tisink.core.clock import Clock, FeedClock, WallClock
from tisink.errors import PlayRefused
from tisink.eventsink.stats import AcknowledgedEnds
from tisink.feed.errors import FeedError, PlayError
from tisink.feed.inline import play_with_factory
from tisink.feed.pacing import Pacer
from tisink.feed.player import DEFAULT_WATERMARK_INTERVAL_MS
from tisink.feed.reader import check_feed, read_feed
from tisink.feed.records import FeedRecord, FeedRow
from tisink.feed.stats import PlayStats
from tisink.feed.workload import generate_records
from tisink.interrupt import StopRequest
from tisink.measures import Measured, apply_measures
from tisink.sink import ChangefeedConfig, SinkFactory
from tisink.sink.uri import parse_sink_uri
from tisink.summary import RunSummary
from tisink.verify import render_text, verify

if TYPE_CHECKING:  # the Spark engine is imported only when it plays
    from tisink.feed.spark.task_result import SparkRun

log = logging.getLogger(__name__)

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
    watermark_interval_s: float = DEFAULT_WATERMARK_INTERVAL_MS / 1000
    """Commit time between watermarks (TiCDC's resolved-ts cadence: 1 s)."""
    spark_archive: str = "auto"
    """On a Spark cluster: the executors' Python environment (auto, none or a packed venv)."""
    append: bool = False
    """Let a file sink continue the topics an earlier run left in its folder (no verify)."""
    duration_s: float | None = None
    """With ``rate`` and a workload: generate ``rate * duration_s`` rows instead of ``rows``."""

    def __post_init__(self) -> None:
        """Numbers that cannot mean anything fail before anything starts."""
        if self.feed is not None and self.workload is not None:
            raise ValueError("give --feed or --workload, not both")
        if self.rows is not None and self.rows <= 0:
            raise ValueError(f"--rows must be positive, got {self.rows}")
        if self.rate is not None and not (math.isfinite(self.rate) and self.rate > 0):
            raise ValueError(f"--rate must be a positive number of rows/s, got {self.rate}")
        if self.duration_s is not None:
            self._check_duration(self.duration_s)
        interval = self.watermark_interval_s
        if not (math.isfinite(interval) and interval * 1000 >= 1):
            raise ValueError(f"--watermark-interval must be at least 0.001 s, got {interval}")

    @property
    def watermark_interval_ms(self) -> int:
        return round(self.watermark_interval_s * 1000)

    def _check_duration(self, duration: float) -> None:
        if not (math.isfinite(duration) and duration > 0):
            raise ValueError(f"--duration must be a positive number of seconds, got {duration}")
        if self.rate is None:
            raise ValueError("--duration needs --rate: the play generates rate x duration rows")
        if self.feed is not None:
            raise ValueError("--duration generates a workload; a --feed plays all its rows")
        if self.rows is not None:
            raise ValueError("give --rows or --duration, not both")

    @property
    def workload_rows(self) -> int | None:
        """The rows to generate: ``--rows``, ``--rate`` x ``--duration``, or the scenario's."""
        if self.duration_s is not None and self.rate is not None:
            return max(1, round(self.rate * self.duration_s))
        return self.rows


def run_play(
    options: PlayOptions,
    on_progress: Callable[[PlayStats], None] | None = None,
    stop: StopRequest | None = None,
) -> RunSummary:
    """Play, then (for a stream in Kafka or files whose protocol has a decoder) read it back
    with verify. ``stop``: a request that ends the source early (the inline engine's Ctrl-C);
    the summary then names the signal and is not verified. ``elapsed_s`` is the whole run,
    verify included."""
    stop = stop or StopRequest()
    started, started_at = time.perf_counter(), time.time()
    check_play(options)
    acknowledged: AcknowledgedEnds = {}
    with _sink_uri(options.sink_uri) as sink_uri:
        if options.engine == "spark":
            summary = _play_spark(options, sink_uri, started_at, acknowledged, stop)
        else:
            summary = _play_inline(options, sink_uri, on_progress, stop, started_at, acknowledged)
        if stop.signum is not None:
            summary.stopped_by = signal.Signals(stop.signum).name
        else:
            _verify(options, sink_uri, summary, acknowledged)
    summary.elapsed_s = round(time.perf_counter() - started, 3)
    return summary


def failed_summary(
    options: PlayOptions, err: PlayError, stop: StopRequest | None = None
) -> RunSummary:
    """The summary of a play that stopped on ``err`` (after a stop request, if ``stop`` has
    one): how far it got and why it stopped."""
    stats = err.stats
    sink = parse_sink_uri(options.sink_uri).redacted() if options.sink_uri else "embedded broker"
    summary = RunSummary(
        rows=stats.rows,
        ddl=stats.ddl,
        checkpoint_ts=err.last_checkpoint_ts,
        sink_uri=sink,
        engine=options.engine,
        error=str(err.cause),
    )
    if stop is not None and stop.signum is not None:
        summary.stopped_by = signal.Signals(stop.signum).name
    for sink_stats in stats.sink_stats:
        summary.add_sink_stats(sink_stats)
    return summary


def check_play(options: PlayOptions) -> None:
    """What can be known wrong before anything starts: PlayRefused naming it."""
    if options.feed is not None:
        try:
            check_feed(options.feed)
        except FeedError as err:
            raise PlayRefused(str(err)) from err
    if options.sink_uri is None or options.append:
        return
    factory = SinkFactory(options.sink_uri, _config(options))
    if topics := factory.leftover_topics():
        raise PlayRefused(
            f"sink {factory.uri.redacted()} already holds topic(s) {', '.join(topics)} from an "
            "earlier run: a play would continue their offsets and verify would read both runs "
            "as one stream; choose an empty target, or pass --append to continue it (verify "
            "is then skipped)"
        )


def _config(options: PlayOptions) -> ChangefeedConfig | None:
    return ChangefeedConfig.from_toml(options.config_path) if options.config_path else None


def _verify(
    options: PlayOptions, sink_uri: str, summary: RunSummary, acknowledged: AcknowledgedEnds
) -> None:
    """Read the stream back; ``acknowledged`` (the producers' ends, either engine) adds the
    check that the partitions still hold everything the broker acknowledged."""
    if options.append:
        log.warning("verify skipped: --append continued an earlier run's stream")
        return
    factory = SinkFactory(sink_uri, _config(options))
    if options.verify_after and _verifiable(factory):
        report = verify(
            sink_uri, config_path=options.config_path, acknowledged=acknowledged or None
        )
        summary.verified = report.ok
        if not report.ok:
            log.error("verify found problems:\n%s", render_text(report))


@contextlib.contextmanager
def _sink_uri(sink_uri: str | None) -> Iterator[str]:
    if sink_uri is not None:
        yield sink_uri
        return
    with start_broker() as broker:
        log.info("embedded broker on %s", broker.bootstrap)
        yield f"kafka://{broker.bootstrap}/{DEFAULT_TOPIC}?protocol=simple&partition-num=3"


def _verifiable(factory: SinkFactory) -> bool:
    """A scheme whose stream can be read back, with a protocol that has a decoder."""
    protocol = factory.protocol
    return (
        factory.verifiable
        and protocol is not None
        and get_protocol(protocol).new_decoder is not None
    )


def _play_spark(
    options: PlayOptions,
    sink_uri: str,
    started_at: float,
    acknowledged: AcknowledgedEnds,
    stop: StopRequest,
) -> RunSummary:
    """The Spark engine; fills ``acknowledged`` with what the tasks' producers saw stored.
    A stop request creates the marker file the tasks watch."""
    with tempfile.TemporaryDirectory(prefix="tisink-stop-") as folder:
        marker = Path(folder) / "stop"
        stop.on_stop(lambda: _touch(marker))
        run = _run_spark(options, sink_uri, started_at, str(marker))
    acknowledged.update(run.acknowledged)
    summary = RunSummary(
        rows=run.rows,
        ddl=run.ddl,
        startup_s=run.startup_s,
        rows_per_s=run.rows_per_s,
        elapsed_s=run.elapsed_s,
        checkpoint_ts=run.checkpoint_ts,
        sink_uri=run.sink_uri,
        engine="spark",
        partitions=run.partitions,
    )
    summary.add_sink_stats(run.sink_stats)
    measured = Measured(
        latency=run.latency,
        seconds=run.acked_seconds,
        started_at=started_at,
        sending_s=run.sending_s,
        rate=options.rate,
        behind_s=run.behind_s,
    )
    apply_measures(summary, measured)
    return summary


def _touch(marker: Path) -> None:
    with contextlib.suppress(OSError):  # the play may have ended and removed its folder
        marker.touch()


def _run_spark(options: PlayOptions, sink_uri: str, started_at: float, marker: str) -> SparkRun:
    from tisink.feed.spark import run_spark_play

    return run_spark_play(
        feed_path=str(options.feed) if options.feed else None,
        workload=None if options.feed else (options.workload or DEFAULT_WORKLOAD),
        seed=options.seed,
        rows=options.workload_rows,
        sink_uri=sink_uri,
        config_path=str(options.config_path) if options.config_path else None,
        master=options.master,
        feed_clock=options.feed_clock,
        rate=options.rate,
        watermark_interval_ms=options.watermark_interval_ms,
        archive=options.spark_archive,
        started_at=started_at,
        stop_marker=marker,
    )


def _play_inline(
    options: PlayOptions,
    sink_uri: str,
    on_progress: Callable[[PlayStats], None] | None,
    stop: StopRequest,
    started_at: float,
    acknowledged: AcknowledgedEnds,
) -> RunSummary:
    """The inline player (the watermark policy's points are added by ``play_with_factory``).
    Fills ``acknowledged`` with what the destination acknowledged per partition."""
    config = ChangefeedConfig.from_toml(options.config_path) if options.config_path else None
    clock: Clock = FeedClock() if options.feed_clock else WallClock()
    factory = SinkFactory(sink_uri, config, clock=clock)
    if options.feed is not None:
        records: Iterable[FeedRecord] = read_feed(options.feed)
    else:
        workload = options.workload or DEFAULT_WORKLOAD
        records = generate_records(workload, options.seed, options.workload_rows)
    interval = options.watermark_interval_ms
    first_row = _FirstRow()
    records = first_row.watch(stop.stoppable(records))
    pacer = Pacer(options.rate) if options.rate else None
    summary = asyncio.run(_play(records, factory, on_progress, clock, interval, pacer))
    acknowledged.update(factory.acknowledged_offsets())
    ended = time.time()
    sent_at = first_row.at or ended
    summary.set_timing(startup_s=sent_at - started_at, sending_s=ended - sent_at)
    measured = Measured(
        latency=factory.ack_latency.report(),
        seconds=factory.acked_seconds(),
        started_at=started_at,
        sending_s=ended - sent_at,
        rate=options.rate,
        behind_s=pacer.behind_s if pacer is not None else 0.0,
    )
    apply_measures(summary, measured)
    return summary


class _FirstRow:
    """When the player took the first row: where start-up ends."""

    def __init__(self) -> None:
        self.at: float | None = None

    def watch(self, records: Iterable[FeedRecord]) -> Iterator[FeedRecord]:
        for record in records:
            if self.at is None and type(record) is FeedRow:
                self.at = time.time()
            yield record


async def _play(
    records: Iterable[FeedRecord],
    factory: SinkFactory,
    on_progress: Callable[[PlayStats], None] | None,
    clock: Clock,
    interval_ms: int,
    pacer: Pacer | None,
) -> RunSummary:
    try:
        stats = await play_with_factory(
            records,
            factory,
            clock=clock,
            on_progress=on_progress,
            pacer=pacer,
            watermark_interval_ms=interval_ms,
        )
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
    return summary
