"""The inline engine end to end: a feed file through SinkFactory-made sinks."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import orjson

from tisink.core.clock import FeedClock
from tisink.eventsink.file import read_file_topic
from tisink.feed import play_with_factory
from tisink.feed.format.reader import read_feed
from tisink.feed.format.samples import DEMO_FEED
from tisink.sink import SinkFactory


def _demo() -> list[dict]:
    return [json.loads(line) for line in DEMO_FEED.read_text().splitlines() if line.strip()]


async def test_blackhole_factory_plays_the_sample() -> None:
    lines = _demo()
    stats = await play_with_factory(read_feed(DEMO_FEED), SinkFactory("blackhole://"))
    assert stats.rows == sum(obj["type"] == "row" for obj in lines)
    assert stats.ddl == sum(obj["type"] == "ddl" for obj in lines)


async def test_simple_protocol_to_files_keeps_watermarks_after_rows(tmp_path: Path) -> None:
    lines = _demo()
    factory = SinkFactory(f"file://{tmp_path}/?protocol=simple", clock=FeedClock())
    stats = await play_with_factory(read_feed(DEMO_FEED), factory)
    by_partition: dict[int, list[dict]] = defaultdict(list)
    (topic,) = [p.name for p in tmp_path.iterdir() if p.is_dir()]
    for partition, _, _, value in read_file_topic(tmp_path, topic):
        by_partition[partition].append(orjson.loads(value))
    final = max(obj.get("commitTs", obj.get("ts", 0)) for obj in lines)
    dml = 0
    for messages in by_partition.values():
        watermark = 0
        for message in messages:
            if message["type"] == "WATERMARK":
                assert message["commitTs"] > watermark
                watermark = message["commitTs"]
            elif message["type"] in ("INSERT", "UPDATE", "DELETE"):
                dml += 1
                assert message["commitTs"] > watermark  # no row behind a watermark
        assert watermark == final == stats.checkpoint_ts
    assert dml >= stats.rows
