"""The inline engine for workloads."""

from __future__ import annotations

from pathlib import Path

import orjson

from tisink.codec.message import MessageType
from tisink.eventsink.file import list_file_topics, read_file_topic
from tisink.feed.format.records import FeedRow
from tisink.feed.inline import play_with_factory
from tisink.feed.workload import generate_records
from tisink.sink import SinkFactory


async def test_workload_plays_inline_to_the_file_sink(tmp_path: Path) -> None:
    factory = SinkFactory(f"file://{tmp_path}?protocol=simple&partition-num=2")
    stats = await play_with_factory(generate_records("all-types", 3, 200), factory)
    assert stats.rows == 200
    assert sum(s.message_count(MessageType.DML) for s in stats.sink_stats) == 200
    dml = 0
    for topic in list_file_topics(tmp_path):
        for _, _, _, value in read_file_topic(tmp_path, topic):
            dml += orjson.loads(value)["type"] in ("INSERT", "UPDATE", "DELETE")
    assert dml == 200
    last = max(r.row.commit_ts for r in generate_records("all-types", 3, 200) if type(r) is FeedRow)
    assert stats.checkpoint_ts == last
