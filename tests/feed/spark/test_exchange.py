"""The feed's Arrow exchange without Spark: stage one's batches, sorted as the JVM sorts them,
give each owner exactly the items the router makes of the feed's rows."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa

from tisink.core.clock import WallClock
from tisink.feed.format.reader import FeedParser
from tisink.feed.format.records import FeedDDL, FeedRow, Source
from tisink.feed.spark.driver.run import _plan
from tisink.feed.spark.driver.survey import FeedSurvey, place_of, survey_partition
from tisink.feed.spark.exchange import ORDER, exchanged_items, split_lines
from tisink.feed.spark.plan import PlayPlan, record_seq
from tisink.feed.spark.reports import ChunkReport
from tisink.feed.spark.tasks.feed_stage import FeedStage, feed_stage_batches
from tisink.feed.spark.tasks.routing import RowRouter, make_factory
from tisink.feed.workload import generate_feed
from tisink.model.events import RowChecksum

INDEX_VALUE = '[[sink.dispatchers]]\nmatcher = ["*.*"]\npartition = "index-value"\n'
BLOCK = 5000
"""Where the feed's second split starts (its byte offset, as Spark names a split)."""


def _batches(rows: list[tuple[str, int, bytes]], size: int) -> list[pa.RecordBatch]:
    """Spark's text rows as Arrow batches of ``size`` rows: a split runs over several."""
    out = []
    for at in range(0, len(rows), size):
        part = rows[at : at + size]
        out.append(
            pa.RecordBatch.from_arrays(
                [
                    pa.array([r[0] for r in part]),
                    pa.array([r[1] for r in part], pa.int64()),
                    pa.array([r[2] for r in part], pa.binary()),
                ],
                names=["file_name", "file_block_start", "value"],
            )
        )
    return out


class _Input:
    """What ``run._plan`` reads of a feed, found as the driver finds it (no Spark)."""

    def __init__(self, rows: list[tuple[str, int, bytes]]) -> None:
        texts = [(f, b, v.decode()) for f, b, v in rows]
        self.survey = FeedSurvey.collect(survey_partition(texts, 1000))
        parser = FeedParser()
        self.ddls: list[Any] = []
        self.ddl_keys: list[Any] = []
        for place, text in self.survey.ddl_lines:
            record = parser.parse_line(text.encode(), Source("feed.jsonl", 0))
            assert type(record) is FeedDDL
            self.ddls.append(record.ddl)
            self.ddl_keys.append((record.commit_ts, record_seq(place)))
        self.resolved = [ts for _, ts in self.survey.resolved]
        place, ts = self.survey.first_row or (0, 0)
        self.first_row = (ts, record_seq(place, 0))
        self.first_ts, self.last_ts = self.survey.first_ts, self.survey.last_ts
        self.intervals = self.survey.intervals


def _feed(tmp_path: Path) -> list[tuple[str, int, bytes]]:
    """The demo feed with one UPDATE moved to a new primary key, in two splits."""
    whole = tmp_path / "feed.jsonl"
    generate_feed("demo", 4, 400, whole)
    lines = whole.read_bytes().splitlines()
    updates = ((i, orjson.loads(line)) for i, line in enumerate(lines) if b'"op":"UPDATE"' in line)
    at, update = next((i, u) for i, u in updates if i > 100 and "id" in u["after"])
    update["after"]["id"] = 4_000_000_000
    lines[at] = orjson.dumps(update)
    half = len(lines) // 2
    return [("feed.jsonl", 0 if i < half else BLOCK, line) for i, line in enumerate(lines)]


def _setup(tmp_path: Path, rows: list[tuple[str, int, bytes]]) -> tuple[PlayPlan, FeedStage]:
    source = _Input(rows)
    uri = f"file://{tmp_path / 'out'}?protocol=simple&partition-num=3"
    factory = make_factory(uri, INDEX_VALUE, WallClock())
    plan = _plan(factory, source, INDEX_VALUE, True, 1000, None)  # type: ignore[arg-type]
    ddl_lines = tuple(source.survey.ddl_lines)
    return plan, FeedStage(source.survey.ranks, ddl_lines)


def _places(rows: list[tuple[str, int, bytes]]) -> list[int]:
    starts = {block: i for i, (_, block, _) in reversed(list(enumerate(rows)))}
    return [place_of(0, block, i - starts[block]) for i, (_, block, _) in enumerate(rows)]


def _owned(exchange: list[pa.RecordBatch], owner: int) -> list[pa.RecordBatch]:
    """One owner's rows sorted as the JVM sorts them (``repartitionById``, then ``ORDER``)."""
    table = pa.Table.from_batches(exchange)
    mine = table.filter(pa.compute.equal(table["owner"], owner))
    return mine.sort_by([(column, "ascending") for column in ORDER]).to_batches(max_chunksize=5)


def test_split_lines_gives_each_split_its_runs_across_batches() -> None:
    rows = [("a", 0, b"1"), ("a", 0, b"2"), ("a", 0, b"3"), ("a", 9, b"4"), ("b", 0, b"5")]
    found = [
        (file, block, [line for run in runs for line in run.to_pylist()])
        for file, block, runs in split_lines(_batches(rows, 2))
    ]
    assert found == [("a", 0, [b"1", b"2", b"3"]), ("a", 9, [b"4"]), ("b", 0, [b"5"])]


def test_each_owner_gets_the_routers_items_of_its_rows_behind_every_report(
    tmp_path: Path,
) -> None:
    values = _owners_get_the_routers_items(tmp_path, _feed(tmp_path))
    assert all(value[6] is None for value in values)


def test_a_lines_checksum_reaches_its_owner_as_the_router_gives_it(tmp_path: Path) -> None:
    """The feed's checksums, the split UPDATE's corrupted one zeroed on each half as the
    table sink's split zeroes it."""
    rows = _feed(tmp_path)
    given: tuple[dict[str, Any] | None, ...] = (
        {},
        {"version": 1},
        {"current": 7, "previous": 9},
        None,
    )
    for index, (file, block, line) in enumerate(rows):
        record = orjson.loads(line)
        checksum = given[index % len(given)]
        if record["type"] == "row" and checksum is not None:
            record["checksum"] = checksum
        if record.get("after", {}).get("id") == 4_000_000_000:
            record["checksum"] = {"corrupted": True}
        rows[index] = (file, block, orjson.dumps(record))
    values = _owners_get_the_routers_items(tmp_path, rows)
    [delete] = [v[6] for v in values if v[3] is None and v[6] is not None and v[6].corrupted]
    [insert] = [v[6] for v in values if not v[5]]  # the one split's INSERT half
    assert delete.current == 0 and delete.previous != 0
    assert insert is not None and insert.corrupted
    assert insert.previous == 0 and insert.current != 0
    assert sum(value[6] is not None for value in values) > len(values) // 2
    assert any(value[6] == RowChecksum(2, False, 7, 9) for value in values)


def _owners_get_the_routers_items(tmp_path: Path, rows: list[tuple[str, int, bytes]]) -> list[Any]:
    """Check each owner's exchange gives the router's items of its rows behind every
    report; every row's value."""
    plan, stage = _setup(tmp_path, rows)
    assert plan.split_updates
    exchange = list(feed_stage_batches(_batches(rows, 7), plan, stage))
    # what the router makes of the rows read in feed order, by owner
    router, parser, ref = RowRouter(plan), FeedParser(), 0
    expected: dict[int, list[Any]] = {owner: [] for owner in range(plan.tasks)}
    for (_, _, line), place in zip(rows, _places(rows), strict=True):
        record = parser.parse_line(line, Source("feed.jsonl", 1))
        if type(record) is FeedDDL:
            if record.ddl.table is not None:
                router.learn(record.ddl.table, ref)
            ref += 1
        elif type(record) is FeedRow:
            for key, value in router.route(record.row, place):
                expected[key[0]].append((key, value))
    halves = [v for items in expected.values() for _, v in items if not v[5]]
    assert len(halves) == 1  # the key-changing UPDATE, split
    tables = tuple(ddl.table for ddl in plan.ddls)
    for owner, items in expected.items():
        got = list(exchanged_items(_owned(exchange, owner), tables))
        reports = [value for key, value in got if key[1] < 0]
        assert [type(r) for r in reports] == [ChunkReport, ChunkReport]
        assert all(r.problem is None for r in reports)
        assert got[len(reports) :] == sorted(items, key=lambda item: item[0])
    return [value for items in expected.values() for _, value in items]


def test_a_bad_line_is_placed_at_its_line_of_its_split_and_stops_the_split(
    tmp_path: Path,
) -> None:
    rows = _feed(tmp_path)
    plan, stage = _setup(tmp_path, rows)
    bad = next(i for i, r in enumerate(rows) if r[1] == BLOCK and b'"op":"INSERT"' in r[2]) + 9
    file, block, line = rows[bad]
    record = orjson.loads(line)
    record["commitTs"] = "soon"
    rows[bad] = (file, block, orjson.dumps(record))
    exchange = list(feed_stage_batches(_batches(rows, 4), plan, stage))
    table = pa.Table.from_batches(exchange)
    reports = [pickle.loads(r) for r in table["report"].to_pylist() if r is not None]
    problems = {r.problem for r in reports if r.problem is not None}
    (problem,) = problems
    assert problem.place == _places(rows)[bad]
    assert "commitTs" in problem.reason
    his, los = table["hi"].to_pylist(), table["lo"].to_pylist()
    routed = {(hi << 30 | lo) >> 2 for hi, lo in zip(his, los, strict=True)}
    assert _places(rows)[bad - 1] in routed
    assert not routed & set(_places(rows)[bad:])  # the split's later lines: not read
