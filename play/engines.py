"""The two engines of ``tisink play``, each turned into a ``RunSummary``: the inline player on
this process's event loop, and the Spark job (imported only when it plays)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from tisink.core.clock import Clock, FeedClock, WallClock
from tisink.eventsink.kafka.client_noise import quiet_abandoned_sends, quiet_client_retries
from tisink.eventsink.stats import AcknowledgedEnds
from tisink.feed.errors import PlayError
from tisink.feed.format.reader import read_feed
from tisink.feed.format.records import FeedRecord, FeedRow
from tisink.feed.inline import play_with_factory
from tisink.feed.pacing import Pacer
from tisink.feed.play_spec import PlaySpec
from tisink.feed.stats import PlayStats
from tisink.feed.workload import generate_records
from tisink.play.errors import PlayFailed
from tisink.run.interrupt import StopRequest
from tisink.run.measures import Measured, apply_measures
from tisink.run.summary import RunSummary, per_second
from tisink.run.written_partitions import written_partitions
from tisink.sink import ChangefeedConfig, SinkFactory
from tisink.sink.uri import mask_uri

if TYPE_CHECKING:
    from tisink.feed.spark.task_result import SparkRun

log = logging.getLogger(__name__)


def play_spark(
    spec: PlaySpec,
    started_at: float,
    acknowledged: AcknowledgedEnds,
    stop: StopRequest,
    on_phase: Callable[[str], None] | None = None,
) -> RunSummary:
    """The Spark engine, into ``spec.target_uri``; fills ``acknowledged`` with what the tasks'
    producers saw stored. A stop request creates the marker file the tasks watch (its folder
    also holds the owners' progress). Raises PlayFailed with what the owners delivered when
    the play failed."""
    from tisink.feed.spark import run_spark_play

    with tempfile.TemporaryDirectory(prefix="tisink-stop-") as folder:
        marker = Path(folder) / "stop"
        stop.on_stop(lambda: _touch(marker))
        try:
            run = run_spark_play(
                spec, started_at=started_at, stop_marker=str(marker), on_phase=on_phase
            )
        except PlayError as err:
            raise PlayFailed(_failed_spark(spec, started_at, err)) from err
    acknowledged.update(run.acknowledged)
    return _spark_summary(spec, run, started_at)


def _failed_spark(spec: PlaySpec, started_at: float, err: PlayError) -> RunSummary:
    from tisink.feed.spark.errors import SparkPlayError

    run = err.run if isinstance(err, SparkPlayError) else None
    if run is None:  # nothing was written: stage one or Spark itself failed
        summary = RunSummary(
            rows=err.stats.rows, sink_uri=redacted(spec.target_uri), engine="spark"
        )
        return failed(summary, err, 0.0)
    return failed(_spark_summary(spec, run, started_at), err, run.sending_s)


def _spark_summary(spec: PlaySpec, run: SparkRun, started_at: float) -> RunSummary:
    summary = RunSummary(
        rows=run.rows,
        ddl=run.ddl,
        startup_s=run.startup_s,
        rows_per_s=run.rows_per_s,
        writing_rows_per_s=run.writing_rows_per_s,
        elapsed_s=run.elapsed_s,
        checkpoint_ts=run.checkpoint_ts,
        sink_uri=run.sink_uri,
        engine="spark",
        partitions=run.partitions,
    )
    summary.add_sink_stats(run.sink_stats)
    summary.faults = [fault.to_dict() for fault in run.faults]
    measured = Measured(
        latency=run.latency,
        seconds=run.acked_seconds,
        started_at=started_at,
        sending_s=run.sending_s,
        rate=spec.mean_rate,
        behind_s=run.behind_s,
    )
    apply_measures(summary, measured)
    return summary


def _touch(marker: Path) -> None:
    with contextlib.suppress(OSError):  # the play may have ended and removed its folder
        marker.touch()


def play_inline(
    spec: PlaySpec,
    on_progress: Callable[[PlayStats], None] | None,
    stop: StopRequest,
    started_at: float,
    acknowledged: AcknowledgedEnds,
) -> RunSummary:
    """The inline player into ``spec.target_uri`` (the watermark policy's points are added by
    ``play_with_factory``). Fills ``acknowledged`` with what the destination acknowledged per
    partition."""
    config = ChangefeedConfig.from_toml(spec.config_path) if spec.config_path else None
    if spec.faults is not None:
        config = (config or ChangefeedConfig()).with_setting("faults", spec.faults, "--faults")
    clock: Clock = FeedClock() if spec.feed_clock else WallClock()
    factory = SinkFactory(spec.target_uri, config, clock=clock)
    if spec.feed is not None:
        records: Iterable[FeedRecord] = read_feed(spec.feed)
    else:
        records = generate_records(spec.scenario, spec.seed, spec.workload_rows)
    interval = spec.watermark_interval_ms
    first_row = _FirstRow()
    records = first_row.watch(stop.stoppable(records))
    pacer = Pacer(spec.pacing) if spec.pacing else None
    error: PlayError | None = None
    try:
        with quiet_client_retries():
            summary = asyncio.run(_play(records, factory, on_progress, clock, interval, pacer))
    except PlayError as err:
        error = err
        summary = _summary(err.stats, err.last_checkpoint_ts, factory)
    acknowledged.update(factory.acknowledged_offsets())
    summary.faults = [fault.to_dict() for fault in factory.injected_faults()]
    ended = time.time()
    sent_at = first_row.at or ended
    summary.set_timing(startup_s=sent_at - started_at, sending_s=ended - sent_at)
    measured = Measured(
        latency=factory.ack_latency.report(),
        seconds=factory.acked_seconds(),
        started_at=started_at,
        sending_s=ended - sent_at,
        rate=pacer.target if pacer is not None else None,
        behind_s=pacer.behind_s if pacer is not None else 0.0,
    )
    apply_measures(summary, measured)
    if error is not None:
        raise PlayFailed(failed(summary, error, ended - sent_at)) from error
    summary.partitions = written_partitions(factory, acknowledged)
    return summary


def failed(summary: RunSummary, err: PlayError, sending_s: float) -> RunSummary:
    """``summary`` of a play that stopped on ``err``: its error and last checkpoint, and
    ``rows_per_s`` over the rows acknowledged by the end of ``sending_s`` (not every row read
    was), from the command's start (``startup_s`` before it)."""
    summary.error = str(err.cause)
    summary.checkpoint_ts = err.last_checkpoint_ts
    acked = int(summary.latency_ms.get("count", 0))
    summary.rows_per_s = per_second(acked, summary.startup_s + sending_s)
    summary.writing_rows_per_s = per_second(acked, sending_s)
    return summary


def redacted(sink_uri: str) -> str:
    """The sink URI for a summary, masked even when it does not parse (a failed run)."""
    return mask_uri(sink_uri)


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
    quiet_abandoned_sends(asyncio.get_running_loop())
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
        # the command prints the error once, and the summary its checkpoint
        log.info("play stopped: %s; last checkpoint ts %d", err.cause, err.last_checkpoint_ts)
        raise
    return _summary(stats, stats.checkpoint_ts, factory)


def _summary(stats: PlayStats, checkpoint_ts: int, factory: SinkFactory) -> RunSummary:
    summary = RunSummary(
        rows=stats.rows,
        ddl=stats.ddl,
        checkpoint_ts=checkpoint_ts,
        sink_uri=factory.uri.redacted(),
        engine="inline",
    )
    for sink_stats in stats.sink_stats:
        summary.add_sink_stats(sink_stats)
    return summary
