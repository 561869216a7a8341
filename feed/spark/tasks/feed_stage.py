"""The first stage over a feed folder: check every line and route every row, split by split.

A task reads its splits' lines itself (``feed_lines.py``). Each split gets a reader
(``FeedParser``, the streaming reader's own checks) whose schemas are where the feed is at the
split's start: the DDL lines before it are read into it first. The split's lines are then read
in order, the common rows straight into the run's lists (``FeedParser.read_rows``: no record
objects and no events, ``LightRow`` tuples), every other line on its own (``parse_line``).
Each row is routed to its owner and leaves as its line's place in its file in an Arrow row of
the exchange (``exchange.py``), and the split ends with a ``ChunkReport`` for every stage-two
task (its first bad line, what the cross-split checks need, the transactions whose UPDATE was
split, the BOOTSTRAP cadence counts). Every line is checked here because no owner may write
before the whole feed is known to be good. A split stops at its first bad line, and with
``validate_only`` nothing is routed: the driver then only wants the reports.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

import pyarrow as pa

from tisink.core.collector import rare_collections
from tisink.core.errors import TisinkError
from tisink.feed.errors import FeedError
from tisink.feed.format.reader import FeedParser
from tisink.feed.format.records import FeedDDL, FeedResolved, FeedRow, Source
from tisink.feed.format.row_builder import LightRow, light_row
from tisink.feed.spark.bootstraps import TableIntervals
from tisink.feed.spark.exchange import BATCH_ROWS, ExchangeBatches
from tisink.feed.spark.feed_lines import FeedSplit, LineRun, split_runs
from tisink.feed.spark.plan import PlayPlan, place_of
from tisink.feed.spark.reports import ChunkReport, InputProblem
from tisink.feed.spark.stop_marker import shield_from_terminal
from tisink.feed.spark.tasks.routing import RowRouter


@dataclass(frozen=True)
class FeedStage:
    """What the feed's first stage needs besides the plan (broadcast with it)."""

    splits: tuple[FeedSplit, ...]
    """The feed's splits: a task reads those whose index Spark hands it."""
    ddl_lines: tuple[tuple[int, str], ...]
    """(place, text) of the DDLs the plan holds, in feed order: plan DDL i is line i."""
    resolved_before: tuple[int, ...]
    """Each split's largest ``resolved`` ts before it (-1: none; ``resolved_before``): its
    reader starts after it, as the streaming reader would be there, so a row that is not after
    it is refused for that reason on both engines."""
    tasks: int = 1
    """The owner tasks of stage two: each gets every split's report (as owner ``task``)."""
    stop: int | None = None
    """Read no line at or after this place (where the driver found a bad DDL)."""
    validate_only: bool = False


def resolved_before(
    splits: Sequence[FeedSplit], resolved: Sequence[tuple[int, int]]
) -> tuple[int, ...]:
    """Each split's largest ts of the ``resolved`` records ((place, ts), in feed order) that
    lie before it; -1 where none does."""
    places = [place for place, _ in resolved]
    largest = list(accumulate((ts for _, ts in resolved), max, initial=-1))
    return tuple(
        largest[bisect_left(places, place_of(split.rank, split.start, 0))] for split in splits
    )


def feed_stage_batches(
    batches: Iterable[pa.RecordBatch], plan: PlayPlan, stage: FeedStage
) -> Iterator[pa.RecordBatch]:
    """Stage one over the Arrow batches of a Spark partition of split indexes (``id``, into
    ``stage.splits``): the exchange's batches."""
    shield_from_terminal(plan.stop_marker)
    router = RowRouter(plan)
    counting = plan.bootstrap is not None
    out = ExchangeBatches()
    with rare_collections():
        for batch in batches:
            for index in batch.column(0).to_pylist():
                split = stage.splits[index]
                counts = TableIntervals(plan.interval_ms, plan.table_ids) if counting else None
                start = place_of(split.rank, split.start, 0)
                runs = split_runs(split)
                resolved = stage.resolved_before[index]
                report = yield from _split(router, stage, start, split, runs, counts, out, resolved)
                out.report(report, stage.tasks)
        yield from out.take()


def _split(
    router: RowRouter,
    stage: FeedStage,
    start: int,
    split: FeedSplit,
    runs: Iterator[LineRun],
    counts: TableIntervals | None,
    out: ExchangeBatches,
    resolved: int,
) -> Generator[pa.RecordBatch, None, ChunkReport]:
    """Read one split (its lines in runs) into ``out``, yielding each full batch; its report.
    Its reader starts after the DDLs and the ``resolved`` ts before it."""
    parser = FeedParser()
    ddls = iter(enumerate(stage.ddl_lines))
    pending = next(ddls, None)
    while pending is not None and pending[1][0] < start:
        ref, (place, text) = pending
        _learn(router, parser.parse_line(text.encode(), Source(split.path, 0)), ref)
        pending = next(ddls, None)
    parser.seen_resolved(resolved)
    first: tuple[int, int] | None = None
    last_ts, last_resolved = 0, -1
    problem: InputProblem | None = None
    router.split_txns.clear()
    offset = start  # the place of the run's first line
    rows: list[LightRow] = []  # the run's rows, routed together
    indexes: list[int] = []
    for run in runs:
        count = len(run.lines)
        if stage.stop is not None and offset + count > stage.stop:
            count = max(0, stage.stop - offset)
        out.lines_from(run, split.rank)
        lines = run.texts(count)
        at = 0
        while at < len(lines):
            read = len(rows)
            at = parser.read_rows(lines, at, rows, indexes)  # the common rows, checked
            if len(rows) > read:
                if first is None:
                    first = (offset + indexes[read], rows[read][0])
                last_ts = max(last_ts, rows[-1][0])
                if stage.validate_only:
                    rows.clear()
                    indexes.clear()
            if at == len(lines):
                break
            raw, place = lines[at], offset + at
            at += 1
            if not raw or raw.isspace():
                continue
            try:
                record = parser.parse_line(raw, Source(split.path, at))
                if type(record) is FeedRow:
                    ts = record.row.commit_ts
                    if not stage.validate_only:
                        rows.append(light_row(record.row))
                        indexes.append(at - 1)
                elif type(record) is FeedDDL:
                    ts = record.commit_ts
                    while pending is not None and pending[1][0] < place:
                        pending = next(ddls, None)
                    if pending is None or pending[1][0] != place:
                        raise FeedError("a DDL the first pass did not see")
                    problem = _route(router, rows, indexes, offset, out, counts)
                    if problem is not None:
                        break
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
        unrouted = _route(router, rows, indexes, offset, out, counts)
        if unrouted is not None and (problem is None or unrouted.place < problem.place):
            problem = unrouted
        offset += len(lines)
        if len(out) >= BATCH_ROWS:  # a run is about RUN_BYTES of lines at most
            yield from out.take()
        if problem is not None or (stage.stop is not None and offset >= stage.stop):
            break
    split_txns = tuple(sorted(router.split_txns))
    found = counts.entries() if counts is not None else ()
    return ChunkReport(start, first, last_ts, last_resolved, problem, split_txns, found)


def _route(
    router: RowRouter,
    rows: list[LightRow],
    indexes: list[int],
    offset: int,
    out: ExchangeBatches,
    counts: TableIntervals | None,
) -> InputProblem | None:
    """Route the rows gathered so far (``RowRouter.route_run``), emptying the lists; the
    problem at the first row that cannot be routed."""
    if not rows:
        return None
    unrouted = router.route_run(rows, indexes, offset, out, counts)
    at = indexes[unrouted[0]] if unrouted is not None else 0
    rows.clear()
    indexes.clear()
    return None if unrouted is None else _problem(offset + at, unrouted[1])


def _learn(router: RowRouter, record: Any, ref: int) -> None:
    if type(record) is FeedDDL and record.ddl.table is not None:
        router.learn(record.ddl.table, ref)


def _problem(place: int, err: TisinkError) -> InputProblem:
    if isinstance(err, FeedError):
        return InputProblem(place, err.reason, err.table, err.column)
    return InputProblem(place, str(err))
