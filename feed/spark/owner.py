"""The second stage: one task owns one (topic, partition) and writes everything it receives.

The task gets the partition's rows from the shuffle, sorted by (commitTs, feed order), behind
the first stage's reports. If any report names a bad record, it writes nothing and says so.
Otherwise it merges its rows with the plan's events for it (its topic's DDLs, the watermark
points, the start of rows) and plays them with a ``PartitionPlayer`` into an MQ DML sink and
DDL sink that write only its partition (``sink.partition_owner``). It returns one result dict
instead of raising, so the driver sees the error, the partition and how far it got.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
import traceback
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from tisink.core.clock import Clock, FeedClock, WallClock
from tisink.eventsink.mq.producer import acknowledged_ends, merge_ends
from tisink.eventsink.mq.stats import acked_seconds, merge_seconds
from tisink.feed.errors import FeedError, PlayError
from tisink.feed.pacing import Pacer
from tisink.feed.records import FeedRow
from tisink.feed.spark.partition_player import PartitionPlayer
from tisink.feed.spark.plan import Key, PartitionRecord, PlayPlan
from tisink.feed.spark.reports import ChunkReport, first_problem
from tisink.feed.spark.routing import RowValue, ShuffleKey, make_factory
from tisink.feed.spark.sink_clock import interval_end_ts
from tisink.feed.spark.stop_marker import shield_from_terminal, until_marked
from tisink.model.events import RowChangedEvent
from tisink.sink.partition_owner import open_partition_sinks
from tisink.tablesink import AckLatency

log = logging.getLogger(__name__)


@dataclass
class _Progress:
    rows: int = 0
    bytes: int = 0
    first_send: float | None = None
    last_send: float | None = None


def play_partition(
    owner: int, items: Iterable[tuple[ShuffleKey, Any]], plan: PlayPlan
) -> dict[str, Any]:
    """Play what the shuffle gave ``owner``; the result dict the driver merges."""
    shield_from_terminal(plan.stop_marker)
    topic, partition = plan.owners[owner] if plan.owners else (None, None)
    result: dict[str, Any] = {"task": owner, "topic": topic, "partition": partition, "ok": True}
    items = iter(items)
    reports: list[ChunkReport] = []
    for key, value in items:
        if key[1] >= 0:
            items = itertools.chain([(key, value)], items)
            break
        reports.append(value)
    problem = first_problem(reports)
    if problem is not None:
        result.update(ok=False, problem=problem, checkpoint_ts=0)
        return result
    split_txns = frozenset(t for report in reports for t in report.split_txns)
    progress = _Progress()
    tables = tuple(ddl.table for ddl in plan.ddls)
    records = _stream(items, plan.owner_events(owner), tables, progress)
    if plan.stop_marker is not None:
        records = until_marked(records, plan.stop_marker)
    return asyncio.run(_play(result, plan, owner, records, split_txns, progress))


def _stream(
    items: Iterator[tuple[ShuffleKey, RowValue]],
    events: list[tuple[Key, PartitionRecord]],
    tables: tuple[Any, ...],
    progress: _Progress,
) -> Iterator[PartitionRecord]:
    """The rows (sorted) merged with the plan's events (sorted, far fewer), counting the feed's
    rows and noting when the first is handed over (the end of start-up)."""
    pending = iter(events)
    upcoming = next(pending, None)
    for key, value in items:
        place = (key[1], key[2])
        while upcoming is not None and upcoming[0] < place:
            yield upcoming[1]
            upcoming = next(pending, None)
        ref, start_ts, before, after, size, counted = value
        if counted:
            progress.rows += 1
            progress.bytes += size
        if progress.first_send is None:
            progress.first_send = time.time()
        yield FeedRow(
            RowChangedEvent(start_ts, key[1], tables[ref], before, after, approximate_size=size)
        )
    while upcoming is not None:
        yield upcoming[1]
        upcoming = next(pending, None)
    progress.last_send = time.time()


async def _play(
    result: dict[str, Any],
    plan: PlayPlan,
    owner: int,
    records: Iterable[PartitionRecord],
    split_txns: frozenset[tuple[int, int]],
    progress: _Progress,
) -> dict[str, Any]:
    clock: Clock = WallClock()
    if plan.feed_clock:
        clock = FeedClock()
        clock.observe_ts(interval_end_ts(plan.first_ts - 1, plan.interval_ms))
    sinks: list[Any] = []
    checkpoint = 0
    pacer = Pacer(plan.rate) if plan.rate else None
    latency: AckLatency | None = None
    try:
        factory = make_factory(plan.sink_uri, plan.config_text, clock)
        latency = factory.ack_latency
        if plan.owners:
            topic, partition = plan.owners[owner]
            event_sink, ddl_sink = await open_partition_sinks(factory, topic, partition)
            sinks = [event_sink, ddl_sink]
        else:
            event_sink = await factory.create_event_sink()
            sinks.append(event_sink)
            ddl_sink = await factory.create_ddl_sink()
            sinks.append(ddl_sink)
        player = PartitionPlayer(
            event_sink,
            ddl_sink,
            lambda table_id: factory.create_table_sink(table_id, event_sink),
            live_tables=plan.live_tables,
            clock=clock,
            interval_ms=plan.interval_ms,
            split_txns=split_txns,
            run_timers=bool(plan.owners),
            pacer=pacer,
        )
        stats = await player.play(records)
        checkpoint = stats.checkpoint_ts
        result.update(ddl=stats.ddl, watermarks=stats.watermarks, tables=stats.tables)
    except PlayError as err:
        checkpoint = err.last_checkpoint_ts
        _describe(result, err.cause)
    except Exception as err:  # a task must report, never crash: the driver raises
        _describe(result, err)
    finally:
        stats_of: list[dict[str, int]] = []
        for sink in sinks:
            try:
                await sink.close()
            except Exception as err:
                if result["ok"]:
                    _describe(result, err)
            report = getattr(sink, "stats", None)
            stats_of.append(report() if callable(report) else {})
    result.update(
        rows=progress.rows,
        bytes=progress.bytes,
        checkpoint_ts=checkpoint,
        first_send=progress.first_send,
        last_ack=time.time(),
        sink_stats=_sum(stats_of),
        acknowledged=merge_ends(*(acknowledged_ends(sink) for sink in sinks)),
        latency=latency.report() if latency is not None else None,
        acked_seconds=merge_seconds(acked_seconds(sink) for sink in sinks),
        last_send=progress.last_send,
    )
    return result


def _describe(result: dict[str, Any], err: BaseException) -> None:
    log.error("spark task %s failed: %s", result["task"], err)
    result.update(
        ok=False,
        error=str(err),
        error_type=type(err).__name__,
        traceback="".join(traceback.format_exception(err)),
    )
    if isinstance(err, FeedError):
        result.update(
            reason=err.reason, file=err.file, line=err.line, table=err.table, column=err.column
        )


def _sum(stats: Iterable[dict[str, int]]) -> dict[str, int]:
    total: dict[str, int] = {}
    for item in stats:
        for key, value in item.items():
            if isinstance(value, int):
                total[key] = total.get(key, 0) + value
    return total
