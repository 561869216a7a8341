"""Idle commit time costs no WATERMARKs of its own: a day of silence after a DDL is one point
(issue 28; the Spark engine: ``tests/feed/spark/test_feed_paths.py``)."""

from __future__ import annotations

from pathlib import Path

import orjson

from tests.feed.idle_feed import expected_points, idle_day_records, write_records
from tisink.core.clock import FeedClock
from tisink.eventsink.file import read_file_topic
from tisink.feed import play_with_factory
from tisink.feed.format.reader import read_feed
from tisink.sink import SinkFactory


async def test_a_day_of_silence_after_a_ddl_is_one_watermark(tmp_path: Path) -> None:
    records = idle_day_records()
    feed = write_records(tmp_path / "idle.jsonl", records)
    out = tmp_path / "out"
    factory = SinkFactory(f"file://{out}?protocol=simple&partition-num=2", clock=FeedClock())
    stats = await play_with_factory(read_feed(feed), factory)
    points = expected_points(records)
    assert len(points) == 5  # three busy seconds, the day after the silence, the last row
    stamps: dict[int, list[int]] = {}
    for partition, _, _, value in read_file_topic(out, "tidb-cdc"):
        message = orjson.loads(value)
        if message["type"] == "WATERMARK":
            stamps.setdefault(partition, []).append(message["commitTs"])
    assert stamps == {0: points, 1: points}
    assert stats.watermarks == len(points)
