"""The first stage over a feed folder: check every line and route every row, split by split.

Each split gets a reader (``FeedParser``, the streaming reader's own checks) whose schemas are
where the feed is at the split's start: the DDL lines before it are read into it first. The
split's lines are then read in order; each row is routed to its owner, and the split ends with
a ``ChunkReport`` for every owner (its first bad line, what the cross-split checks need, the
transactions whose UPDATE was split). A split stops at its first bad line, and with
``validate_only`` nothing is routed: the driver then only wants the reports.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import groupby
from typing import Any

from tisink.core.errors import TisinkError
from tisink.feed.errors import FeedError
from tisink.feed.format.reader import FeedParser
from tisink.feed.format.records import FeedDDL, FeedResolved, FeedRow, Source
from tisink.feed.spark.bootstraps import TableIntervals
from tisink.feed.spark.plan import PlayPlan
from tisink.feed.spark.reports import ChunkReport, InputProblem
from tisink.feed.spark.routing import RowRouter
from tisink.feed.spark.stop_marker import shield_from_terminal
from tisink.feed.spark.survey import place_of

Item = tuple[tuple[int, int, int], Any]


@dataclass(frozen=True)
class FeedStage:
    """What the feed's first stage needs besides the plan (broadcast with it)."""

    ranks: dict[str, int]
    ddl_lines: tuple[tuple[int, str], ...]
    """(place, text) of the DDLs the plan holds, in feed order: plan DDL i is line i."""
    stop: int | None = None
    """Read no line at or after this place (where the driver found a bad DDL)."""
    validate_only: bool = False


def feed_stage_partition(rows: Iterable[Any], plan: PlayPlan, stage: FeedStage) -> Iterator[Item]:
    """Stage one over a Spark partition of ``(file_name, file_block_start, value)`` rows."""
    shield_from_terminal(plan.stop_marker)
    router = RowRouter(plan)
    counting = plan.bootstrap is not None
    for (file, block), lines in groupby(rows, key=lambda row: (row[0], row[1])):
        counts = TableIntervals(plan.interval_ms, plan.table_ids) if counting else None
        start = place_of(stage.ranks[file], block, 0)
        yield from _split(router, plan, stage, start, file, lines, counts)


def _split(
    router: RowRouter,
    plan: PlayPlan,
    stage: FeedStage,
    start: int,
    file: str,
    lines: Any,
    counts: TableIntervals | None,
) -> Iterator[Item]:
    parser = FeedParser()
    ddls = iter(enumerate(stage.ddl_lines))
    pending = next(ddls, None)
    while pending is not None and pending[1][0] < start:
        ref, (place, text) = pending
        _learn(router, parser.parse_line(text.encode(), Source(file, 0)), ref)
        pending = next(ddls, None)
    first: tuple[int, int] | None = None
    last_ts, last_resolved = 0, -1
    problem: InputProblem | None = None
    router.split_txns.clear()
    for index, row in enumerate(lines):
        text = row[2]
        if not text or text.isspace():
            continue
        place = start + index
        if stage.stop is not None and place >= stage.stop:
            break
        try:
            record = parser.parse_line(text.encode(), Source(file, index + 1))
            if type(record) is FeedRow:
                ts = record.row.commit_ts
                if not stage.validate_only:
                    yield from router.route(record.row, place, counts)
            elif type(record) is FeedDDL:
                ts = record.commit_ts
                while pending is not None and pending[1][0] < place:
                    pending = next(ddls, None)
                if pending is None or pending[1][0] != place:
                    raise FeedError("a DDL the first pass did not see")
                _learn(router, record, pending[0])
            else:
                assert type(record) is FeedResolved
                ts = last_resolved = record.ts
        except TisinkError as err:
            problem = _problem(place, err)
            break
        if first is None:
            first = (place, ts)
        last_ts = max(last_ts, ts)
    split = tuple(sorted(router.split_txns))
    found = counts.entries() if counts is not None else ()
    report = ChunkReport(start, first, last_ts, last_resolved, problem, split, found)
    for owner in range(plan.tasks):
        yield (owner, -1, start), report


def _learn(router: RowRouter, record: Any, ref: int) -> None:
    if type(record) is FeedDDL and record.ddl.table is not None:
        router.learn(record.ddl.table, ref)


def _problem(place: int, err: TisinkError) -> InputProblem:
    if isinstance(err, FeedError):
        return InputProblem(place, err.reason, err.table, err.column)
    return InputProblem(place, str(err))
