"""What the driver needs from a play's input, for a feed folder and for a workload.

Both kinds give the driver every DDL event (to know the live tables for watermarks), the DDLs
without a table (the driver writes them), the commit-ts range, and a way to run one epoch as a
Spark job whose tasks return result dicts (feed/spark/task.py).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from tisink.feed.errors import FeedError
from tisink.feed.reader import FeedParser
from tisink.feed.records import FeedDDL, Source
from tisink.feed.spark.source import (
    RESOLVED,
    UNROUTABLE,
    ddl_table_ids,
    lineage_groups,
    number_lines,
    pack_groups,
    route_line,
    window_records,
)
from tisink.feed.spark.task import TaskSpec, in_window, run_task
from tisink.feed.workload import Scenario, generate_table_records
from tisink.feed.workload.schedule import PlannedDDL, plan
from tisink.model.events import DDLEvent

log = logging.getLogger(__name__)


@dataclass
class PlaySource:
    tasks: int
    ddls: list[DDLEvent]
    """Every DDL of the input, in commit order."""
    first_ts: int
    last_ts: int
    run_epoch: Any
    """``run_epoch(spec: TaskSpec) -> list[dict]``: one Spark job, one result per task."""
    tableless: list[DDLEvent] = field(default_factory=list)


def feed_source(spark: Any, path: str, tasks: int | None) -> PlaySource:
    """Read the feed at ``path`` (any path Spark reads) into per-task sorted partitions."""
    from pyspark import StorageLevel

    frame = spark.read.text(path).select("_metadata.file_name", "value")
    keyed = frame.rdd.mapPartitions(number_lines).flatMap(route_line)
    keyed = keyed.persist(StorageLevel.MEMORY_AND_DISK)
    summary = (
        keyed.map(lambda kv: (kv[0], (1, kv[1][0], kv[1][0])))
        .reduceByKey(lambda a, b: (a[0] + b[0], min(a[1], b[1]), max(a[2], b[2])))
        .collectAsMap()
    )
    if UNROUTABLE in summary:
        _, file, line, _, reason = (
            keyed.filter(lambda kv: kv[0] == UNROUTABLE).values().min(key=lambda v: (v[1], v[2]))
        )
        keyed.unpersist()
        raise FeedError(reason, file=file, line=line)
    ddl_lines = sorted(
        keyed.filter(lambda kv: kv[1][3] == "d").values().collect(), key=lambda v: v[:3]
    )
    ddls, tableless = _parse_ddls(ddl_lines)
    groups = lineage_groups(
        text for *_, kind, text in ddl_lines if kind == "d" and ddl_table_ids(text)
    )
    weights: dict[int, int] = {}
    for key, (count, _, _) in summary.items():
        if key >= 0:
            group = groups.get(key, key)
            weights[group] = weights.get(group, 0) + count
    slots = tasks or min(max(1, len(weights)), spark.sparkContext.defaultParallelism)
    assign = pack_groups(weights, slots)
    table_lines = keyed.filter(lambda kv: kv[0] >= 0).map(
        lambda kv: ((kv[1][0], kv[1][1], kv[1][2], kv[1][3], groups.get(kv[0], kv[0])), kv[1][4])
    )
    ordered = table_lines.repartitionAndSortWithinPartitions(
        slots, partitionFunc=lambda key: assign[key[4]], keyfunc=lambda key: key[:3]
    ).persist(StorageLevel.MEMORY_AND_DISK)
    keyed.unpersist()
    stamps = [(low, high) for key, (_, low, high) in summary.items() if key != RESOLVED]

    def run_epoch(spec: TaskSpec) -> list[dict[str, Any]]:
        def task(index: int, items: Iterable[Any]) -> Iterator[dict[str, Any]]:
            lines = ((key[:4], text) for key, text in items)
            yield run_task(index, spec, window_records(lines, spec.low, spec.high))

        return ordered.mapPartitionsWithIndex(task).collect()

    return PlaySource(
        tasks=slots,
        ddls=ddls,
        first_ts=min((s[0] for s in stamps), default=0),
        last_ts=max((s[1] for s in stamps), default=0),
        run_epoch=run_epoch,
        tableless=tableless,
    )


def _parse_ddls(
    lines: list[tuple[int, str, int, str, str]],
) -> tuple[list[DDLEvent], list[DDLEvent]]:
    """Validate the DDLs in feed order on the driver (a bad DDL stops the play before it
    starts) and split off the ones without a table."""
    parser = FeedParser()
    ddls: list[DDLEvent] = []
    for _, file, number, _, text in lines:
        try:
            record = parser.parse_line(text.encode(), Source(file, number))
        except FeedError as err:
            raise err.at(file, number) from err.__cause__
        assert isinstance(record, FeedDDL)
        ddls.append(record.ddl)
    tableless = [d for d in ddls if d.table is None and d.pre_table is None]
    return ddls, tableless


def workload_source(
    spark: Any, scenario: Scenario, seed: int, rows: int | None, tasks: int | None
) -> PlaySource:
    """Generate ``scenario`` inside the executors, each task its share of the tables."""
    ddls: list[DDLEvent] = []
    first = last = 0
    for step in plan(scenario, seed, rows):
        if type(step) is PlannedDDL:
            ts = step.event.commit_ts
            ddls.append(step.event)
        else:
            ts = step.commit_ts  # type: ignore[union-attr]
        first = first or ts
        last = ts
    slots = tasks or min(len(scenario.tables), spark.sparkContext.defaultParallelism)
    # a table's share of the rows: its share of the transactions times their mean size
    weights = {
        i: int(t.weight * (t.txn_size[0] + t.txn_size[1]) * 500)
        for i, t in enumerate(scenario.tables)
    }
    assign = pack_groups(weights, slots)
    names = [
        [t.qualified_name for i, t in enumerate(scenario.tables) if assign[i] == task]
        for task in range(slots)
    ]
    context = spark.sparkContext

    def run_epoch(spec: TaskSpec) -> list[dict[str, Any]]:
        def task(index: int, _: Iterable[Any]) -> Iterator[dict[str, Any]]:
            records = generate_table_records(scenario, seed, rows, names[index])
            yield run_task(index, spec, in_window(records, spec.low, spec.high))

        return context.parallelize(range(slots), slots).mapPartitionsWithIndex(task).collect()

    return PlaySource(tasks=slots, ddls=ddls, first_ts=first, last_ts=last, run_epoch=run_epoch)
