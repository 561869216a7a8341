"""The feed's Arrow exchange without Spark: stage one's batches over a feed file's splits,
sorted as the JVM sorts them, give each owner exactly the items the router makes of the
feed's rows, its lines read back from the file."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.feed.spark.split_feed import SplitFeed, demo_lines, stage_setup
from tisink.feed.format.reader import FeedParser
from tisink.feed.format.records import FeedDDL, FeedRow, Source
from tisink.feed.spark.exchange import ORDER, ROW, ExchangeBatches, Exchanged
from tisink.feed.spark.feed_lines import FeedLines, LineRun
from tisink.feed.spark.plan import LO_BITS
from tisink.feed.spark.reports import ChunkReport
from tisink.feed.spark.tasks.owner import OwnerProgress, exchange_stream
from tisink.feed.spark.tasks.routing import RowRouter
from tisink.model.events import RowChecksum


def _owned(exchange: list[pa.RecordBatch], task: int, tasks: int) -> list[pa.RecordBatch]:
    """One task's rows sorted as the JVM sorts them (``repartitionById``: the owner modulo
    the tasks, then ``ORDER``)."""
    table = pa.Table.from_batches(exchange)
    mine = table.filter(pa.array(table["owner"].to_numpy() % tasks == task))
    return mine.sort_by([(column, "ascending") for column in ORDER]).to_batches(max_chunksize=5)


@pytest.mark.parametrize("tasks", [1, 2, 3])
def test_each_task_gets_the_routers_items_of_its_owners_rows_behind_every_report(
    tmp_path: Path, tasks: int
) -> None:
    values = _owners_get_the_routers_items(tmp_path, demo_lines(tmp_path), tasks)
    assert all(value[6] is None for value in values)


def test_a_lines_checksum_reaches_its_owner_as_the_router_gives_it(tmp_path: Path) -> None:
    """The feed's checksums, the split UPDATE's corrupted one zeroed on each half as the
    table sink's split zeroes it."""
    lines = demo_lines(tmp_path)
    given: tuple[dict[str, Any] | None, ...] = (
        {},
        {"version": 1},
        {"current": 7, "previous": 9},
        None,
    )
    for index, line in enumerate(lines):
        record = orjson.loads(line)
        checksum = given[index % len(given)]
        if record["type"] == "row" and checksum is not None:
            record["checksum"] = checksum
        if record.get("after", {}).get("id") == 4_000_000_000:
            record["checksum"] = {"corrupted": True}
        lines[index] = orjson.dumps(record)
    values = _owners_get_the_routers_items(tmp_path, lines)
    [delete] = [v[6] for v in values if v[3] is None and v[6] is not None and v[6].corrupted]
    [insert] = [v[6] for v in values if not v[5]]  # the one split's INSERT half
    assert delete.current == 0 and delete.previous != 0
    assert insert is not None and insert.corrupted
    assert insert.previous == 0 and insert.current != 0
    assert sum(value[6] is not None for value in values) > len(values) // 2
    assert any(value[6] == RowChecksum(2, False, 7, 9) for value in values)


def _owners_get_the_routers_items(tmp_path: Path, lines: list[bytes], tasks: int = 3) -> list[Any]:
    """Check each of ``tasks`` tasks' exchange gives the router's items of its owners' rows
    (in one order) behind every report, addressed to it; every row's value."""
    feed = SplitFeed(tmp_path / "feed.jsonl", lines)
    plan, stage = stage_setup(tmp_path, feed, tasks)
    assert plan.split_updates
    exchange = feed.stage_one(plan, stage)
    # what the router makes of the rows read in feed order, by owner
    router, parser, ref = RowRouter(plan), FeedParser(), 0
    expected: dict[int, list[Any]] = {owner: [] for owner in range(plan.tasks)}
    for line, place in zip(lines, feed.places, strict=True):
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
    by_owner = tuple(range(plan.tasks))  # each row's ``partition`` names its owner here
    for task in range(tasks):
        exchanged = Exchanged(_owned(exchange, task, tasks))
        reports = exchanged.reports()
        assert [(owner, type(r)) for owner, r in reports] == [(task, ChunkReport)] * 2
        assert all(r.problem is None for _, r in reports)
        progress = OwnerProgress()
        with FeedLines([str(feed.path)]) as reader:
            records = exchange_stream(exchanged.rows(), [], plan, reader, progress, by_owner)
            rows = [record.row for record in records]  # type: ignore[union-attr]
        items = [item for owner in plan.owners_of_task(task, tasks) for item in expected[owner]]
        items.sort(key=lambda item: item[0][1:])  # as the JVM sorts: (commitTs, seq)
        got = [
            (
                row.partition,
                row.commit_ts,
                next(ref for ref, table in enumerate(tables) if table is row.table),
                row.start_ts,
                row.before,
                row.after,
                row.approximate_size,
                row.checksum,
            )
            for row in rows
        ]
        assert got == [(k[0], k[1], *v[:5], v[6]) for k, v in items]
        assert progress.rows == sum(value[5] for _, value in items)
    return [value for items in expected.values() for _, value in items]


def test_a_bad_line_is_placed_at_its_line_of_its_split_and_stops_the_split(
    tmp_path: Path,
) -> None:
    lines = demo_lines(tmp_path)
    second = SplitFeed(tmp_path / "feed.jsonl", lines).second
    bad = next(i for i, line in enumerate(lines) if i > second and b'"op":"INSERT"' in line) + 9
    record = orjson.loads(lines[bad])
    record["commitTs"] = "soon"
    lines[bad] = orjson.dumps(record)
    feed = SplitFeed(tmp_path / "feed.jsonl", lines)
    plan, stage = stage_setup(tmp_path, feed)
    table = pa.Table.from_batches(feed.stage_one(plan, stage))
    reports = [pickle.loads(r) for r in table["report"].to_pylist() if r is not None]
    problems = {r.problem for r in reports if r.problem is not None}
    (problem,) = problems
    assert problem.place == feed.places[bad]
    assert "commitTs" in problem.reason
    chunks = [np.frombuffer(c, ROW) for c in table["rows"].to_pylist() if c is not None]
    rows = np.concatenate(chunks)
    his, los = rows["hi"].tolist(), rows["lo"].tolist()
    routed = {(hi << LO_BITS | lo) >> 2 for hi, lo in zip(his, los, strict=True)}
    assert feed.places[bad - 1] in routed
    assert not routed & set(feed.places[bad:])  # the split's later lines: not read


_KEYS = st.tuples(st.integers(0, 6), st.integers(0, 3), st.integers(0, 40))


@settings(max_examples=150, deadline=None)
@given(
    rows=st.lists(st.tuples(_KEYS, st.integers(0, 5)), unique_by=lambda row: row[0], max_size=80),
    producers=st.integers(1, 3),
    takes=st.lists(st.integers(1, 30), max_size=4),
    chunk_rows=st.integers(1, 7),
    tasks=st.integers(1, 4),
)
def test_the_owners_tasks_get_every_row_once_in_key_order_from_packed_chunks(
    rows: list[tuple[tuple[int, int, int], int]],
    producers: int,
    takes: list[int],
    chunk_rows: int,
    tasks: int,
) -> None:
    """Rows given to several stage-one tasks (each handing chunks over several times), the
    chunks moved and sorted as the JVM does: each owner task reads exactly its owners' rows,
    in (commitTs, seq) order, with the line each names."""
    texts = [b"line %d\n" % i for i in range(len(rows))]
    data = b"".join(texts)
    offsets = np.cumsum([0, *map(len, texts)])
    lines = pa.Array.from_buffers(
        pa.binary(), len(texts), [None, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(data)]
    )
    run = LineRun(lines, offsets[:-1], np.array([len(t) - 1 for t in texts], np.int32), data)
    out = [ExchangeBatches(chunk_rows) for _ in range(producers)]
    for gathered in out:
        gathered.lines_from(run, 2)
    batches: list[pa.RecordBatch] = []
    for index, ((ts, hi, lo), owner) in enumerate(rows):
        gathered = out[index % producers]
        gathered.add(owner, ts, hi << LO_BITS | lo, index % 3, 7, index)
        if index in takes:
            batches += gathered.take()
    for gathered in out:
        gathered.report(ChunkReport(0, None, 0, -1, None), tasks)
        batches += gathered.take()
    for task in range(tasks):
        exchanged = Exchanged(_owned(batches, task, tasks))
        assert [owner for owner, _ in exchanged.reports()] == [task] * producers
        got = [tuple(row) for columns in exchanged.rows() for row in zip(*columns, strict=True)]
        expected = sorted(
            (owner, ts, hi, lo, index % 3, 7, 2, int(run.at[index]), int(run.sizes[index]))
            for index, ((ts, hi, lo), owner) in enumerate(rows)
            if owner % tasks == task
        )
        assert got == sorted(expected, key=lambda row: row[1:4])
