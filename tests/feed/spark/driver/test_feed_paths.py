"""Spark plays the feed it is given, whatever its files are called (issue 28): a file named
like a glob is that file, not what the glob matches; a folder whose names hold ``:`` plays
as one feed. Both plays are byte-identical to the inline engine's, and the folder's day of
silence after a DDL costs one WATERMARK point, as inline (``tests/feed/test_idle_gaps.py``)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import orjson
import pytest

pytest.importorskip("pyspark")

from tests.feed.idle_feed import USER_FEED, expected_points, idle_day_records, write_records
from tests.output_files import output_files
from tisink.core.clock import FeedClock
from tisink.eventsink.file import read_file_topic
from tisink.feed.format.reader import read_feed
from tisink.feed.inline import play_with_factory
from tisink.feed.play_spec import PlaySpec
from tisink.feed.spark import run_spark_play
from tisink.sink.factory import SinkFactory

PARTITIONS = 2


def _uri(out: Path) -> str:
    return f"file://{out}?protocol=simple&partition-num={PARTITIONS}"


def _both(feed: Path, tmp_path: Path) -> dict[str, bytes]:
    """Play ``feed`` inline and on Spark under the feed clock; the partition files, which
    must be the same bytes."""
    inline, on_spark = tmp_path / "inline", tmp_path / "spark"
    factory = SinkFactory(_uri(inline), clock=FeedClock())
    asyncio.run(play_with_factory(read_feed(feed), factory))
    run_spark_play(PlaySpec(feed=feed, sink_uri=_uri(on_spark), master="local[2]", clock="feed"))
    files = output_files(inline)
    assert files == output_files(on_spark)
    return files


def _messages(out: Path) -> list[tuple[int, dict[str, Any]]]:
    """(partition, message) of every record, partition by partition."""
    return [(p, orjson.loads(value)) for p, _, _, value in read_file_topic(out, "tidb-cdc")]


def test_a_file_named_like_a_glob_is_played_itself(spark: Any, tmp_path: Path) -> None:
    folder = tmp_path / "glob"
    folder.mkdir()
    named = write_records(folder / "feed[1].jsonl", idle_day_records())
    (folder / "feed1.jsonl").write_bytes(USER_FEED.read_bytes())  # what the glob matches
    _both(named, tmp_path)
    messages = _messages(tmp_path / "spark")
    inserted = [m["data"]["id"] for _, m in messages if m["type"] == "INSERT"]
    assert sorted(inserted) == ["1", "2", "3"]


def test_a_folder_with_colons_in_its_names_is_one_feed(spark: Any, tmp_path: Path) -> None:
    folder = tmp_path / "feed"
    folder.mkdir()
    records = idle_day_records()
    write_records(folder / "feed-2024-01-01T10:00:00.jsonl", records[:3])  # up to the DDL
    write_records(folder / "feed-2024-01-02T10:00:01.jsonl", records[3:])  # a day later
    _both(folder, tmp_path)
    messages = _messages(tmp_path / "spark")
    assert sum(m["type"] == "INSERT" for _, m in messages) == 3
    points = expected_points(records)
    for partition in range(PARTITIONS):
        stamps = [m["commitTs"] for p, m in messages if p == partition and m["type"] == "WATERMARK"]
        assert stamps == points
