"""The first stage of a workload play: each task generates its tables' rows and routes them.

Tables are generated whole (a table's rows depend on its earlier ones), so stage one spreads
over the tables; stage two spreads over the partitions, which is where one hot table's rows
fan out. Generated rows are valid by construction; an error (say, a dispatcher that does not
fit a table) becomes a ``ChunkReport`` so that no owner writes anything.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tisink.core.errors import TisinkError
from tisink.feed.format.records import FeedDDL, FeedRow
from tisink.feed.spark.bootstraps import TableIntervals
from tisink.feed.spark.plan import PlayPlan
from tisink.feed.spark.reports import ChunkReport, InputProblem
from tisink.feed.spark.routing import RowRouter
from tisink.feed.spark.stop_marker import shield_from_terminal
from tisink.feed.workload import Scenario, generate_table_records

Item = tuple[tuple[int, int, int], Any]
FIRST_PLACE = 1
"""Rows of a transaction are placed 1, 2, 3... (DDLs, which have commit ts of their own,
take place 0)."""


def workload_stage_partition(
    task: int, tables: list[str], plan: PlayPlan, scenario: Scenario, seed: int, rows: int | None
) -> Iterator[Item]:
    """Generate and route the rows of ``tables``; a report to every owner if anything failed
    or an UPDATE was split."""
    shield_from_terminal(plan.stop_marker)
    router = RowRouter(plan)
    refs = {key[0]: index for index, key in enumerate(plan.ddl_keys)}
    txn_ts, place = 0, FIRST_PLACE
    problem: InputProblem | None = None
    counts = (
        TableIntervals(plan.interval_ms, plan.table_ids) if plan.bootstrap is not None else None
    )
    try:
        for record in generate_table_records(scenario, seed, rows, tables):
            if type(record) is FeedRow:
                ts = record.row.commit_ts
                if ts != txn_ts:
                    txn_ts, place = ts, FIRST_PLACE
                yield from router.route(record.row, place, counts)
                place += 1
            elif type(record) is FeedDDL and record.ddl.table is not None:
                router.learn(record.ddl.table, refs[record.commit_ts])
    except TisinkError as err:
        problem = InputProblem(txn_ts, f"workload {scenario.name}: {err}")
    found = counts.entries() if counts is not None else ()
    if problem is None and not router.split_txns and not found:
        return
    split = tuple(sorted(router.split_txns))
    report = ChunkReport(task, None, 0, -1, problem, split, found)
    for owner in range(plan.tasks):
        yield (owner, -1, task), report
