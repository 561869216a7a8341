"""Stage one's checks over a feed's splits find what the streaming reader finds, at the same
line: the first bad record of the whole feed, with its reason, table and column."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.feed.spark.split_feed import SplitFeed, demo_lines, stage_setup
from tisink.feed.errors import FeedError
from tisink.feed.format.reader import FeedParser
from tisink.feed.spark.feed_lines import FeedSplit
from tisink.feed.spark.plan import place_of
from tisink.feed.spark.reports import ChunkReport, first_problem
from tisink.feed.spark.tasks.feed_stage import resolved_before

KINDS = ("not json", "blank", "spaces", "ts text", "unknown column", "op", "ts back", "resolved")


def _mutated(line: bytes, kind: str) -> list[bytes]:
    """``line`` changed by one kind of mistake (or a harmless blank or resolved line before
    it): the lines that replace it."""
    if kind == "not json":
        return [line[: len(line) // 2]]
    if kind in ("blank", "spaces"):
        return [b"" if kind == "blank" else b"   ", line]
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:  # mutated already
        return [line]
    if record.get("type") != "row" or type(record.get("commitTs")) is not int:
        return [line]  # a DDL, a resolved record, or mutated already
    if kind == "resolved":  # valid unless a row of its commit ts came before
        return [orjson.dumps({"type": "resolved", "ts": record["commitTs"] - 1}), line]
    image = "after" if "after" in record else "before"
    if kind == "ts text":
        record["commitTs"] = str(record["commitTs"])
    elif kind == "unknown column":
        record[image]["no_such_column"] = 1
    elif kind == "op":
        record["op"] = "DELETE" if record["op"] == "INSERT" else "INSERT"
    else:  # "ts back"
        record["commitTs"] = record["startTs"] = 1
    return [orjson.dumps(record)]


def _reference(lines: list[bytes]) -> FeedError | None:
    """The streaming reader's first error over the whole feed (as a file's lines), if any."""
    try:
        for _ in FeedParser().parse_lines((line + b"\n" for line in lines), "feed.jsonl"):
            pass
    except FeedError as err:
        return err
    return None


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.tuples(st.floats(0.02, 0.999), st.sampled_from(KINDS)), min_size=0, max_size=3))
@example([(0.6, "resolved"), (0.55, "spaces")])
@example([(0.4, "unknown column")])
@example([(0.75, "ts back"), (0.125, "resolved")])  # the resolved record in the first split
def test_stage_one_finds_the_readers_first_bad_line(
    tmp_path: Path, mutations: list[tuple[float, str]]
) -> None:
    lines = demo_lines(tmp_path)
    for where, kind in sorted(mutations, reverse=True):  # later lines first: indexes hold
        at = int(where * len(lines))
        lines[at : at + 1] = _mutated(lines[at], kind)
    if not _ddls_intact(lines):
        return  # a bad DDL: the driver's own check finds the first problem (FeedInput.check)
    expected = _reference(lines)
    feed = SplitFeed(tmp_path / "feed.jsonl", lines)
    plan, stage = stage_setup(tmp_path, feed)
    table = pa.Table.from_batches(feed.stage_one(plan, stage))
    reports = [pickle.loads(r) for r in table["report"].to_pylist() if r is not None]
    problem = first_problem(reports)
    if expected is None:
        assert problem is None
        _check_spans(feed, reports)
        return
    assert problem is not None and expected.line is not None
    assert problem.place == feed.places[expected.line - 1]
    assert (problem.reason, problem.table, problem.column) == (
        expected.reason,
        expected.table,
        expected.column,
    )


def _ddls_intact(lines: list[bytes]) -> bool:
    return all(b'"type":"ddl"' not in line or line.endswith(b"}") for line in lines)


def _check_spans(feed: SplitFeed, reports: list[ChunkReport]) -> None:
    """Each split's first record and largest ts, as its lines say."""
    starts = {0: range(feed.second), feed.places[feed.second]: range(feed.second, len(feed.lines))}
    for report in reports:
        records = [
            (feed.places[i], _ts(orjson.loads(feed.lines[i])))
            for i in starts[report.start]
            if feed.lines[i].strip()
        ]
        assert report.first == records[0]
        assert report.last_ts == max(ts for _, ts in records)


def _ts(record: dict[str, Any]) -> int:
    return int(record.get("commitTs", record.get("ts", 0)))


def test_each_split_starts_after_the_largest_resolved_ts_before_it() -> None:
    splits = [FeedSplit(0, "a", 0, 100), FeedSplit(0, "a", 100, 200), FeedSplit(1, "b", 0, 50)]
    resolved = [(place_of(0, 0, 3), 5), (place_of(0, 0, 7), 9), (place_of(0, 100, 2), 7)]
    assert resolved_before(splits, resolved) == (-1, 9, 9)
    assert resolved_before(splits, []) == (-1, -1, -1)
