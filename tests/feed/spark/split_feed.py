"""A feed file in two splits and stage one's plan for it, found as the driver finds them
(no Spark): what the exchange's and stage one's tests share."""

from __future__ import annotations

from itertools import accumulate
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa

from tisink.core.clock import WallClock
from tisink.feed.format.reader import FeedParser
from tisink.feed.format.records import FeedDDL, Source
from tisink.feed.spark.driver.run import _plan
from tisink.feed.spark.driver.survey import FeedSurvey, survey_split
from tisink.feed.spark.feed_lines import FeedSplit, split_runs
from tisink.feed.spark.plan import PlayPlan, place_of, record_seq
from tisink.feed.spark.tasks.feed_stage import FeedStage, feed_stage_batches, resolved_before
from tisink.feed.spark.tasks.routing import make_factory
from tisink.feed.workload import generate_feed

INDEX_VALUE = '[[sink.dispatchers]]\nmatcher = ["*.*"]\npartition = "index-value"\n'


class SplitFeed:
    """A feed file in two splits, the second starting inside a line; each line's place."""

    def __init__(self, path: Path, lines: list[bytes]) -> None:
        self.path, self.lines = path, lines
        path.write_bytes(b"".join(line + b"\n" for line in lines))
        starts = [0, *accumulate(len(line) + 1 for line in lines)][:-1]
        cut = starts[len(lines) // 2] + 3  # inside a line: it stays in the first split
        self.splits = (
            FeedSplit(0, str(path), 0, cut),
            FeedSplit(0, str(path), cut, path.stat().st_size),
        )
        self.second = second = next(i for i, start in enumerate(starts) if start >= cut)
        """The first line of the second split."""
        self.places = [
            place_of(0, 0, i) if i < second else place_of(0, cut, i - second)
            for i in range(len(lines))
        ]

    def stage_one(self, plan: PlayPlan, stage: FeedStage) -> list[pa.RecordBatch]:
        """Stage one's batches, the two splits in one Spark partition."""
        ids = pa.RecordBatch.from_arrays([pa.array([0, 1], pa.int64())], names=["id"])
        return list(feed_stage_batches([ids], plan, stage))


class _Input:
    """What ``run._plan`` reads of a feed, found as the driver finds it (no Spark)."""

    def __init__(self, feed: SplitFeed) -> None:
        items = [
            item
            for split in feed.splits
            for item in survey_split(0, split.start, (run.lines for run in split_runs(split)), 1000)
        ]
        self.survey = FeedSurvey.collect(items, ["feed.jsonl"])
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


def demo_lines(tmp_path: Path) -> list[bytes]:
    """The demo feed's lines with one UPDATE moved to a new primary key."""
    whole = tmp_path / "demo.jsonl"
    generate_feed("demo", 4, 400, whole)
    lines = whole.read_bytes().splitlines()
    updates = ((i, orjson.loads(line)) for i, line in enumerate(lines) if b'"op":"UPDATE"' in line)
    at, update = next((i, u) for i, u in updates if i > 100 and "id" in u["after"])
    update["after"]["id"] = 4_000_000_000
    lines[at] = orjson.dumps(update)
    return lines


def stage_setup(tmp_path: Path, feed: SplitFeed, tasks: int = 1) -> tuple[PlayPlan, FeedStage]:
    source = _Input(feed)
    uri = f"file://{tmp_path / 'out'}?protocol=simple&partition-num=3"
    factory = make_factory(uri, INDEX_VALUE, WallClock())
    plan = _plan(factory, source, INDEX_VALUE, True, 1000, None)  # type: ignore[arg-type]
    ddl_lines = tuple(source.survey.ddl_lines)
    resolved = resolved_before(feed.splits, source.survey.resolved)
    return plan, FeedStage(feed.splits, ddl_lines, resolved, tasks)
