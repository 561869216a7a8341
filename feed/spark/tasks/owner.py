"""The second stage of a feed: one task per core owns every ``tasks``-th (topic, partition)
and writes everything it receives, as one stream.

The task gets its owners' rows from the shuffle in packed chunks, which it merges into
(commitTs, feed order) (``exchange.merged_chunks``), behind the first stage's reports. If any
report names a bad record, it writes nothing and says so. Otherwise it reads each row's line
back from the feed, merges the rows with the plan's events for its owners (their topics' DDLs,
the watermark points, the start of rows, the BOOTSTRAPs) and plays them with one ``partition
player`` into an MQ DML sink and DDL sink that write only its partitions
(``sink.partition_owner``, for any scheme whose provider is an MQ target). It returns one
``TaskResult`` instead of raising, so the driver sees the error, the partitions and how far it
got. ``play_owner`` also plays a generated workload's task (``owned_workload``).
"""

from __future__ import annotations

import asyncio
import logging
import pickle
import time
import traceback
from collections.abc import Iterable, Iterator, Sequence, Set
from dataclasses import dataclass
from typing import Any

import orjson
import pyarrow as pa

from tisink.core.clock import Clock, FeedClock, WallClock
from tisink.core.collector import rare_collections
from tisink.ddlsink.base import DDLSink
from tisink.eventsink.base import EventSink
from tisink.eventsink.capabilities import (
    acked_seconds,
    acknowledged_ends,
    merge_ends,
    merge_seconds,
    stats_of,
)
from tisink.eventsink.faults import injected_faults, merge_faults
from tisink.feed.errors import PlayError
from tisink.feed.format.records import FeedRow
from tisink.feed.pacing import Pacer
from tisink.feed.play_records import BootstrapAt
from tisink.feed.spark.bootstraps import owners_bootstraps
from tisink.feed.spark.exchange import RESULT_ARROW, Exchanged, exchanged_checksum
from tisink.feed.spark.feed_lines import FeedLines
from tisink.feed.spark.plan import LO_BITS, Key, PartitionRecord, PlayPlan
from tisink.feed.spark.progress_files import progress_path, report_progress
from tisink.feed.spark.reports import first_problem
from tisink.feed.spark.stop_marker import may_write, shield_from_terminal, until_marked
from tisink.feed.spark.task_result import TaskFailure, TaskResult
from tisink.feed.spark.tasks.partition_player import partition_player
from tisink.feed.spark.tasks.routing import (
    DELETE_HALF,
    INSERT_HALF,
    WHOLE,
    ShuffleKey,
    make_factory,
)
from tisink.feed.watermarks import interval_end_ts
from tisink.model.events import RowChangedEvent
from tisink.sink.partition_owner import open_partition_sinks
from tisink.tablesink import AckLatency

log = logging.getLogger(__name__)


@dataclass
class OwnerProgress:
    """An owner's rows and bytes handed over, and when it sent its first and last."""

    rows: int = 0
    bytes: int = 0
    first_send: float | None = None
    last_send: float | None = None


def play_exchanged(
    batches: Iterable[pa.RecordBatch], plan: PlayPlan, tasks: int, paths: Sequence[str]
) -> Iterator[pa.RecordBatch]:
    """Stage two of a feed over one task's sorted exchange (``exchange.py``), its lines read
    back from the feed's files (``paths``, by rank): its ``TaskResult``, pickled in one
    row. Each of the ``tasks`` tasks gets every split's report first, addressed to it."""
    shield_from_terminal(plan.stop_marker)
    exchange = Exchanged(batches)
    addressed = exchange.reports()
    if not addressed:  # a partition no task plays (each task gets every split's report)
        return
    task = addressed[0][0]
    owners = plan.owners_of_task(task, tasks)
    result = TaskResult(task, tuple(plan.partitions_of(owners)) if plan.owners else ())
    reports = [report for _, report in addressed]
    result.problem = first_problem(reports)
    if result.problem is None:
        split_txns = frozenset(t for report in reports for t in report.split_txns)
        counts = [entry for report in reports for entry in report.table_intervals]
        events = plan.owner_events(owners, owners_bootstraps(plan, owners, counts))
        partitions = tuple(partition for _, partition in plan.owners)
        progress = OwnerProgress()
        with FeedLines(paths) as lines, rare_collections():
            records = exchange_stream(exchange.rows(), events, plan, lines, progress, partitions)
            if plan.stop_marker is not None:
                records = until_marked(records, plan.stop_marker)
            played = play_owner(result, plan, owners, records, progress, split_txns)
            result = asyncio.run(played)
    row = pickle.dumps(result, pickle.HIGHEST_PROTOCOL)
    yield pa.RecordBatch.from_arrays([pa.array([row], pa.binary())], schema=RESULT_ARROW)


def exchange_stream(
    batches: Iterable[list[list[Any]]],
    events: list[tuple[Key, PartitionRecord]],
    plan: PlayPlan,
    lines: FeedLines,
    progress: OwnerProgress,
    partitions: Sequence[int] = (),
) -> Iterator[PartitionRecord]:
    """An owner task's rows (``Exchanged.rows``, sorted) merged with the plan's events
    (sorted, far fewer), each row's line read back from ``lines`` and decoded into its event
    (stage one checked it against its table at that point of the feed). A split UPDATE's
    half keeps one image, and only its DELETE half counts as the feed's row. A row is in the
    partition of its owner (``partitions``, by owner), which the task's sink takes instead of
    dispatching it again. Counts the rows and notes when the first and last are handed over
    (the end of start-up)."""
    tables = tuple(ddl.table for ddl in plan.ddls)
    loads, new_row, record = orjson.loads, RowChangedEvent, FeedRow
    pending = iter(events)
    upcoming = next(pending, None)
    after_all = (1 << 127, 0)
    next_ts, next_seq = upcoming[0] if upcoming is not None else after_all
    started = False
    for columns in batches:
        texts = lines.lines_at(columns[6], columns[7], columns[8])
        rows = zip(*columns[:6], texts, strict=True)
        for owner, ts, hi, lo, part, ref, line in rows:
            seq = hi << LO_BITS | lo
            while next_ts < ts or (next_ts == ts and next_seq < seq):
                assert upcoming is not None
                yield upcoming[1]
                upcoming = next(pending, None)
                next_ts, next_seq = upcoming[0] if upcoming is not None else after_all
            obj = loads(line)
            size = len(line.rstrip(b"\r"))
            if part == WHOLE:
                before, after = obj.get("before"), obj.get("after")
            elif part == DELETE_HALF:
                before, after = obj["before"], None
            else:
                before, after = None, obj["after"]
            if part != INSERT_HALF:
                progress.rows += 1
                progress.bytes += size
            if not started:
                started = True
                progress.first_send = time.time()
            row = new_row(obj["startTs"], ts, tables[ref], before, after, approximate_size=size)
            if partitions:
                row.partition = partitions[owner]
            if "checksum" in obj:  # the one cost of a row without a checksum
                row.checksum = exchanged_checksum(obj, tables[ref], ts, part)
            yield record(row)
    while upcoming is not None:
        yield upcoming[1]
        upcoming = next(pending, None)
    progress.last_send = time.time()


def owner_stream(
    items: Iterator[tuple[ShuffleKey, Any]],
    events: list[tuple[Key, PartitionRecord]],
    tables: tuple[Any, ...],
    progress: OwnerProgress,
) -> Iterator[PartitionRecord]:
    """A workload task's rows (sorted) merged with the plan's events (sorted, far fewer),
    counting the rows and noting when the first is handed over (the end of start-up). An
    item whose value is a ``BootstrapAt`` (a task deciding the cadence as it routes) goes
    after the events at its key, as ``plan.owner_events`` sorts a planned one."""
    pending = iter(events)
    upcoming = next(pending, None)
    for key, value in items:
        place = (key[1], key[2])
        if type(value) is BootstrapAt:
            while upcoming is not None and upcoming[0] <= place:
                yield upcoming[1]
                upcoming = next(pending, None)
            yield value
            continue
        while upcoming is not None and upcoming[0] < place:
            yield upcoming[1]
            upcoming = next(pending, None)
        if type(value) is FeedRow:  # a row routed in this process (``RowRouter.route``)
            progress.rows += 1
            progress.bytes += value.row.approximate_size
            if progress.first_send is None:
                progress.first_send = time.time()
            yield value
            continue
        ref, start_ts, before, after, size, counted, checksum = value
        if counted:
            progress.rows += 1
            progress.bytes += size
        if progress.first_send is None:
            progress.first_send = time.time()
        row = RowChangedEvent(start_ts, key[1], tables[ref], before, after, approximate_size=size)
        if checksum is not None:  # what the encoders write
            row.checksum = checksum
        yield FeedRow(row)
    while upcoming is not None:
        yield upcoming[1]
        upcoming = next(pending, None)
    progress.last_send = time.time()


async def play_owner(
    result: TaskResult,
    plan: PlayPlan,
    owners: Sequence[int],
    records: Iterable[PartitionRecord],
    progress: OwnerProgress,
    split_txns: Set[tuple[int, int]] = frozenset(),
    splits_later: bool = False,
) -> TaskResult:
    """Play ``records`` into sinks writing ``owners``' partitions; ``result`` filled in, never
    raising."""
    if not may_write(plan.stop_marker):
        return result  # stopped before this owner wrote anything
    clock: Clock = WallClock()
    if plan.feed_clock:
        clock = FeedClock()
        clock.observe_ts(interval_end_ts(plan.first_ts - 1, plan.interval_ms))
    sinks: list[EventSink[Any] | DDLSink] = []
    pacer = Pacer(plan.rate * len(owners)) if plan.rate else None  # the rate is per owner
    latency: AckLatency | None = None
    reporting: asyncio.Task[None] | None = None
    try:
        factory = make_factory(plan.sink_uri, plan.config_text, clock, plan.faults)
        latency = factory.ack_latency
        if plan.stop_marker is not None:
            acked = latency
            path = progress_path(plan.stop_marker, owners[0])
            reporting = asyncio.create_task(report_progress(path, lambda: acked.rows))
        event_sink: EventSink[Any]
        if plan.owners:
            partitions = plan.partitions_of(owners)
            event_sink, ddl_sink = await open_partition_sinks(factory, partitions)
            sinks = [event_sink, ddl_sink]
        else:
            event_sink = await factory.create_event_sink()
            sinks.append(event_sink)
            ddl_sink = await factory.create_ddl_sink()
            sinks.append(ddl_sink)
        player = partition_player(
            event_sink,
            ddl_sink,
            lambda table_id: factory.create_table_sink(table_id, event_sink),
            live_tables=plan.live_tables,
            clock=clock,
            interval_ms=plan.interval_ms,
            # pingcap/ticdc's order needs no re-sort: the keys put INSERT halves last
            split_txns=frozenset() if plan.split_newarch else split_txns,
            splits_later=splits_later and not plan.split_newarch,
            pacer=pacer,
        )
        stats = await player.play(records)
        result.checkpoint_ts = stats.checkpoint_ts
        result.ddl, result.watermarks, result.tables = stats.ddl, stats.watermarks, stats.tables
    except PlayError as err:
        result.checkpoint_ts = err.last_checkpoint_ts
        _fail(result, err.cause)
    except Exception as err:  # a task must report, never crash: the driver raises
        _fail(result, err)
    finally:
        for sink in sinks:
            try:
                await sink.close()
            except Exception as err:
                if result.ok:
                    _fail(result, err)
        if reporting is not None:
            reporting.cancel()
            await asyncio.gather(reporting, return_exceptions=True)
    result.rows, result.bytes = progress.rows, progress.bytes
    result.first_send, result.last_send = progress.first_send, progress.last_send
    result.last_ack = time.time()
    result.sink_stats = stats_of(sinks)
    result.acknowledged = merge_ends(*(acknowledged_ends(sink) for sink in sinks))
    result.faults = merge_faults(injected_faults(sink) for sink in sinks)
    result.acked_seconds = merge_seconds(acked_seconds(sink) for sink in sinks)
    result.latency = latency.report() if latency is not None else None
    return result


def _fail(result: TaskResult, err: BaseException) -> None:
    log.error("spark task %s failed: %s", result.task, err)
    result.failure = TaskFailure.of(err, "".join(traceback.format_exception(err)))
