"""A plugin MQ target in its own distribution (``queue://`` of ``tests/plugin_dist``, written
against ``tisink.plugin`` alone, as ``tests/plugin/test_surface.py`` checks) gets what the
built-in MQ sinks get: ``tisink play --engine spark`` with one task per partition, writing byte
for byte what the file sink writes, and ``tisink verify`` through its reader. (The file sink's
default topic is ``tidb-cdc``; the queue is given the same, so the records compare whole.)"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.sink.plugin_support import install_plugin_dist, run_python

pytest.importorskip("pyspark")
pytestmark = pytest.mark.skipif(shutil.which("java") is None, reason="Spark needs Java")

PLAY = """
import asyncio, json, sys
from pathlib import Path
from tisink.core.clock import FeedClock
from tisink.eventsink.file import list_file_topics, read_file_topic_records
from tisink.eventsink.reading import FileRecordSource
from tisink.feed.inline import play_with_factory
from tisink.feed.format.reader import read_feed
from tisink.feed.workload import generate_feed
from tisink.play.run import PlaySpec, run_play
from tisink.sink import SinkFactory
from tisink.verify import verify
from tisink_queue_sink import QueueRecordSource

tmp, protocol = Path(sys.argv[1]), sys.argv[2]
feed = tmp / "demo.jsonl"
generate_feed("demo", 7, 600, feed)
queue_uri = f"queue://{tmp}/queue?protocol={protocol}&partitions=3&topic=tidb-cdc"
summary = run_play(PlaySpec(
    feed=feed, sink_uri=queue_uri, engine="spark", master="local[2]", clock="feed"
))
file_uri = f"file://{tmp}/file?protocol={protocol}&partition-num=3"
asyncio.run(play_with_factory(read_feed(feed), SinkFactory(file_uri, clock=FeedClock())))

def records(source):
    out = {}
    def keep(topic, partition, offset, value, key, headers):
        out.setdefault(f"{topic}/{partition}", []).append([offset, key, value, list(headers)])
    source.read(source.topics(), keep)
    return {k: repr(v) for k, v in out.items()}

queue, files = records(QueueRecordSource(tmp / "queue")), records(FileRecordSource(tmp / "file"))
report = verify(queue_uri)
print(json.dumps({
    "engine": summary.engine,
    "partitions": summary.partitions,
    "verified": summary.verified,
    "rows": summary.rows,
    "messages": summary.messages,
    "queue_partitions": sorted(queue),
    "same_as_file_sink": queue == files,
    "verify_ok": report.ok,
    "verify_messages": report.messages,
}))
"""


@pytest.fixture(scope="module")
def plugin_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return install_plugin_dist(tmp_path_factory.mktemp("plugin"))


@pytest.mark.timeout(600)
@pytest.mark.parametrize("protocol", ["debezium", "tencent-dts"])
def test_spark_owns_the_plugins_partitions_and_verify_reads_them(
    plugin_env: dict[str, str], tmp_path: Path, protocol: str
) -> None:
    result = json.loads(run_python(PLAY, plugin_env, str(tmp_path), protocol, timeout=540))
    assert result["engine"] == "spark"
    assert result["partitions"] == 3  # one Spark task per partition of the plugin's topic
    assert result["queue_partitions"] == ["tidb-cdc/0", "tidb-cdc/1", "tidb-cdc/2"]
    assert result["verified"] is True and result["verify_ok"] is True
    assert result["rows"] == 600 and result["messages"]["DML"] > 0  # DTS frames rows together
    assert result["verify_messages"] == sum(result["messages"].values())
    assert result["same_as_file_sink"]
