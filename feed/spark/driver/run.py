"""``tisink play --engine spark``: the driver of the Spark job (feed/spark/README.md).

1. The driver reads what it plans with: a feed's DDLs, ``resolved`` records and commit-ts range
   (one pass over the text), or a workload's schedule (walked once, recorded in arrays); it
   asks the sink for the partitions of every topic the DDLs' tables route to (creating them
   as the sinks would) and broadcasts a ``PlayPlan``.
2. A workload: one stage of tasks, at most one per core, each owning some partitions (the
   fewest tasks that play as fast as one a core: ``plan.owner_tasks``). A task plans
   each table's rows in bulk, walks only the transactions that touch rows of its partitions,
   builds those rows and plays them (``owned_workload.py``): no shuffle, no barrier, and
   O(rows / tasks) Python work per task.
3. A feed: the tasks read its files in splits themselves (``feed_lines.py``); stage one checks
   every line and routes each row to the (topic, partition) the MQ sink would write it to;
   each line's place in its file crosses in Arrow batches, the JVM moves it to its owner and
   sorts it by (commitTs, feed order) (``exchange.py``); each owner reads its lines back, checks
   stage one's reports (any bad record: it writes nothing), then plays its rows, its topic's
   DDLs and the watermark points into that partition alone.

The checkpoint of the play is the lowest over the partitions. Sinks without partitions (log,
blackhole, plugins) get one task with the factory's own sinks.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import pickle
import time
from collections.abc import Iterator
from typing import Any

from tisink.core.clock import WallClock
from tisink.core.errors import TisinkError
from tisink.eventsink.capabilities import merge_ends, merge_seconds
from tisink.eventsink.faults import merge_faults
from tisink.eventsink.stats import SinkStats
from tisink.feed.play_spec import PlaySpec
from tisink.feed.spark.driver.failures import job_failure
from tisink.feed.spark.driver.jvm_output import take_fatal_error
from tisink.feed.spark.driver.progress import OnPhase, SparkProgress
from tisink.feed.spark.driver.session import spark_session
from tisink.feed.spark.driver.sources import FeedInput, PlayInput, WorkloadInput
from tisink.feed.spark.errors import SparkPlayError
from tisink.feed.spark.exchange import ORDER, RESULT_SCHEMA
from tisink.feed.spark.plan import PlayPlan, owner_tasks
from tisink.feed.spark.stop_marker import StartupStop
from tisink.feed.spark.task_result import SparkRun, TaskResult
from tisink.feed.spark.tasks.batch_scheduling import schedule_as_batch
from tisink.feed.spark.tasks.owner import play_exchanged
from tisink.feed.spark.tasks.routing import make_factory
from tisink.feed.spark.tasks.task_timing import profile_folder, timed
from tisink.feed.stats import PlayStats
from tisink.feed.workload import load_scenario
from tisink.sink import SinkFactory
from tisink.sink.mq_sinks import new_router
from tisink.sink.partition_owner import topic_partition_counts
from tisink.tablesink import LatencyReport, merge_reports

log = logging.getLogger(__name__)


def run_spark_play(
    spec: PlaySpec,
    *,
    started_at: float | None = None,
    stop_marker: str | None = None,
    on_phase: OnPhase | None = None,
) -> SparkRun:
    """Play ``spec`` (a feed or a workload) on Spark into its sink URI: rows, DDLs, what the
    sinks delivered (messages by type, bytes), startup_s, rows_per_s, elapsed_s,
    checkpoint_ts and engine details. ``started_at`` (``time.time()``) is when the command
    started, for ``startup_s``; once the file ``stop_marker`` exists the tasks stop taking
    records and drain (Ctrl-C), and before any owner started the jobs are cancelled and the
    run is empty. ``on_phase`` gets a progress line every half second (``SparkProgress``).
    Raises SparkPlayError when the play stopped on an error."""
    feed_path = str(spec.feed) if spec.feed is not None else None
    workload, rows = spec.scenario, spec.workload_rows
    watermark_interval_ms, faults, rate = spec.watermark_interval_ms, spec.faults, spec.mean_rate
    started_at = started_at or time.time()
    started = time.perf_counter()
    config_text = spec.config_path.read_text(encoding="utf-8") if spec.config_path else None
    factory = make_factory(spec.target_uri, config_text, WallClock(), faults)
    take_fatal_error()  # an earlier job's, in this process
    progress = SparkProgress(on_phase, stop_marker)
    with _spark_failures_in_one_line(), progress:
        progress.phase(f"starting Spark ({spec.master})")
        spark = spark_session(spec.master, archive=spec.spark_archive)
        with StartupStop(spark.sparkContext, stop_marker) as stop:
            progress.watch(spark.sparkContext, stop.group)
            try:
                stop.check()
                source: PlayInput
                if feed_path is not None:
                    progress.phase(f"surveying {feed_path}")
                    source = FeedInput(spark, feed_path, watermark_interval_ms)
                else:
                    progress.phase(f"planning the workload {workload}")
                    scenario = load_scenario(workload)
                    source = WorkloadInput(scenario, spec.seed, rows, watermark_interval_ms)
                progress.phase("asking the sink for its topics' partitions")
                plan = _plan(
                    factory, source, config_text, spec.feed_clock, watermark_interval_ms, rate
                )
                plan = dataclasses.replace(plan, stop_marker=stop_marker, faults=faults)
                log.info(
                    "playing into %d partition owners (%s), %d DDLs, %d watermark points",
                    plan.tasks,
                    ", ".join(sorted(plan.partition_counts)) or factory.scheme,
                    len(plan.ddls),
                    len(plan.points),
                )
                owned = _owned_tasks(source, plan, spark.sparkContext.defaultParallelism)
                if owned:
                    log.info(
                        "%d tasks generate the workload and write the owners' partitions", owned
                    )
                    progress.phase(
                        "writing: every task generates the workload and writes the "
                        "partitions it owns"
                    )
                else:
                    progress.phase("stage one: reading, checking and routing every row")
                results = _run(spark, source, plan, stop, owned)
            except Exception as err:
                if not stop.stopped_by(err):
                    raise
                log.info("stopped before any partition owner started: nothing was written")
                return _nothing_played(factory.uri.redacted(), started_at)
    summary = _summary(plan, source, results, factory.uri.redacted(), started_at)
    summary.elapsed_s = round(time.perf_counter() - started, 3)
    return summary


def _plan(
    factory: SinkFactory,
    source: PlayInput,
    config_text: str | None,
    feed_clock: bool,
    interval_ms: int,
    rate: float | None,
) -> PlayPlan:
    target = factory.mq_target()
    owners: tuple[tuple[str, int], ...] = ()
    counts: dict[str, int] = {}
    bootstrap = None
    ddl_topics = [""] * len(source.ddls)
    if target is not None:
        router = new_router(target.default_topic, target.config)
        ddl_topics = [router.topic_for_ddl(ddl) for ddl in source.ddls]
        tables = {
            router.topic_for_table(t.schema, t.table)
            for ddl in source.ddls
            for t in (ddl.table, ddl.pre_table)
            if t is not None
        }
        counts = asyncio.run(topic_partition_counts(factory, sorted({*ddl_topics, *tables})))
        owners = tuple((topic, p) for topic, n in counts.items() for p in range(n))
        settings = target.config.encoder.bootstrap
        if settings is not None and settings.enabled:
            bootstrap = settings  # the owners write the feed's planned BOOTSTRAPs
    tasks = max(1, len(owners))
    return PlayPlan(
        sink_uri=factory.uri.raw,
        config_text=config_text,
        feed_clock=feed_clock,
        interval_ms=interval_ms,
        owners=owners,
        partition_counts=counts,
        ddls=tuple(source.ddls),
        ddl_keys=tuple(source.ddl_keys),
        ddl_topics=tuple(ddl_topics),
        resolved=tuple(source.resolved),
        first_row=source.first_row,
        first_ts=source.first_ts,
        last_ts=source.last_ts,
        intervals=source.intervals,
        split_updates=bool(owners) and factory.split_policy().enabled,
        split_newarch=factory.split_policy().newarch,
        bootstrap=bootstrap,
        rate=rate / tasks if rate else None,
    )


def _owned_tasks(source: PlayInput, plan: PlayPlan, cores: int) -> int:
    """The tasks that generate a workload in its partition owners (``plan.owner_tasks``);
    0 for a feed (stage one and the exchange)."""
    if not isinstance(source, WorkloadInput):
        return 0
    return source.owned_tasks(plan.tasks, cores)


def _run(
    spark: Any, source: PlayInput, plan: PlayPlan, stop: StartupStop, owned: int = 0
) -> list[TaskResult]:
    """The job: stage one, the shuffle and the partition owners, or with ``owned`` tasks the
    owners generating a workload themselves (the job group that tells ``stop`` whether owners
    started)."""
    context = spark.sparkContext
    if not owned:  # a workload's tasks play several owners each, all at once
        _warn_rate_without_cores(plan, context.defaultParallelism)
    broadcast = context.broadcast(plan)

    profile = profile_folder()
    try:
        source.check(broadcast)
        stop.check()
        if owned:
            assert isinstance(source, WorkloadInput)
            job = source.owned_job(spark, broadcast, owned)
            if profile is not None:
                job = job.mapPartitions(lambda items: timed("owners", profile, items))
            context.setJobGroup(stop.group, "the partition owners generating the workload")
            played: list[TaskResult] = job.collect()
            return sorted(played, key=lambda result: result.task)
        assert isinstance(source, FeedInput)
        tasks = owner_tasks(plan.tasks, context.defaultParallelism)
        exchange = source.stage_one(spark, broadcast, tasks)
        owners = _feed_owners(exchange, tasks, broadcast, source.paths, profile)
        context.setJobGroup(stop.group, "stage one and the partition owners")
        found = [pickle.loads(row.result) for row in owners.collect()]
        return sorted(found, key=lambda result: result.task)
    finally:
        context.setLocalProperty("spark.jobGroup.id", None)  # the next play's survey: none
        broadcast.unpersist()
        source.close()


def _feed_owners(
    exchange: Any, tasks: int, broadcast: Any, paths: tuple[str, ...], profile: str | None
) -> Any:
    """A feed's exchange moved to its ``tasks`` owner tasks and sorted by the JVM, each task's
    owners played as one stream, their lines read from the feed's files (``paths``): a
    DataFrame of their pickled ``TaskResult``s. Owner ``o`` goes to task ``o % tasks``
    (``repartitionById`` takes the owner modulo the tasks), as a workload's task owns them."""

    def owner_task(batches: Any) -> Any:
        schedule_as_batch()
        played = play_exchanged(batches, broadcast.value, tasks, paths)
        return played if profile is None else timed("stage two", profile, played)

    owned = exchange.repartitionById(tasks, "owner").sortWithinPartitions(*ORDER)
    return owned.mapInArrow(owner_task, RESULT_SCHEMA)


def _nothing_played(sink_uri: str, started_at: float) -> SparkRun:
    """The run of a play stopped before any partition owner started."""
    return SparkRun(
        rows=0,
        ddl=0,
        checkpoint_ts=0,
        sink_uri=sink_uri,
        partitions=0,
        watermarks=0,
        feed_bytes=0,
        sink_stats=SinkStats(),
        acknowledged={},
        faults=[],
        startup_s=round(time.time() - started_at, 3),
        rows_per_s=0.0,
        writing_rows_per_s=0.0,
        sending_s=0.0,
        latency=LatencyReport(),
        acked_seconds={},
        behind_s=0.0,
    )


@contextlib.contextmanager
def _spark_failures_in_one_line() -> Iterator[None]:
    """Spark's and Py4J's errors (a session that cannot start, a job that failed, a JVM that
    died) as a SparkPlayError naming the cause in one line; the whole text is a debug log."""
    try:
        yield
    except TisinkError:
        raise
    except Exception as err:
        log.debug("the Spark job failed", exc_info=err)
        cause = TisinkError(f"the Spark job failed: {job_failure(err)}")
        raise SparkPlayError(cause, 0, PlayStats()) from err


def _summary(
    plan: PlayPlan,
    source: PlayInput,
    results: list[TaskResult],
    sink_uri: str,
    started_at: float,
) -> SparkRun:
    problems = [r.problem for r in results if r.problem is not None]
    if problems:
        first = min(problems, key=lambda p: p.place)
        raise SparkPlayError(source.error_for(first), 0, PlayStats())
    checkpoint = min((r.checkpoint_ts for r in results), default=0)
    stats = PlayStats(
        rows=sum(r.rows for r in results),
        bytes=sum(r.bytes for r in results),
        watermarks=max((r.watermarks for r in results), default=0),
        checkpoint_ts=checkpoint,
    )
    sends = [r.first_send for r in results if r.first_send is not None]
    first_send = min(sends, default=None)
    last_ack = max(r.last_ack for r in results)
    span = last_ack - first_send if first_send is not None else 0.0
    run = SparkRun(
        rows=stats.rows,
        ddl=len(plan.ddls),
        checkpoint_ts=checkpoint,
        sink_uri=sink_uri,
        partitions=len(plan.owners),
        watermarks=stats.watermarks,
        feed_bytes=stats.bytes,
        sink_stats=SinkStats.total(r.sink_stats for r in results),
        acknowledged=merge_ends(*(r.acknowledged for r in results)),
        faults=merge_faults(r.faults for r in results),
        startup_s=round((first_send or last_ack) - started_at, 3),
        rows_per_s=_per_second(stats.rows, last_ack - started_at),
        writing_rows_per_s=_per_second(stats.rows, span),
        sending_s=span,
        latency=merge_reports(r.latency for r in results if r.latency is not None),
        acked_seconds=merge_seconds(r.acked_seconds for r in results),
        behind_s=_behind(plan, stats.rows, first_send, results),
    )
    failed = [r for r in results if not r.ok]
    if failed:
        raise SparkPlayError(failed[0].cause(), checkpoint, stats, failed[0], run)
    return run


def _per_second(rows: int, seconds: float) -> float:
    return round(rows / seconds, 1) if seconds > 0 else 0.0


def _warn_rate_without_cores(plan: PlayPlan, cores: int) -> None:
    if plan.rate and plan.tasks > cores:
        log.warning(
            "--rate: %d partitions on %d cores cannot all play at once, so the play falls "
            "behind the rate; give the topics at most %d partitions or Spark more cores",
            plan.tasks,
            cores,
            cores,
        )


def _behind(
    plan: PlayPlan, rows: int, first_send: float | None, results: list[TaskResult]
) -> float:
    """How much longer than the rate allows the rows took, over all tasks: each task holds
    its share of the rate, which adds up to the rate only while every task runs."""
    ends = [r.last_send for r in results if r.last_send is not None]
    if not plan.rate or first_send is None or not ends:
        return 0.0
    planned = rows / (plan.rate * plan.tasks)
    return max(0.0, max(ends) - first_send - planned)
