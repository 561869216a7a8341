"""The summary's ``partitions`` on the inline engine: every partition of every topic the play
wrote, each topic counted whole (as the Spark engine counts its partition owners); 0 for a sink
without partitions."""

from __future__ import annotations

from pathlib import Path

from tests.kafka_support.readback import unique_topic
from tisink.feed.format.samples import DEMO_FEED
from tisink.play.run import PlaySpec, run_play
from tisink.run.written_partitions import written_partitions
from tisink.sink import SinkFactory


def _play(uri: str, config: Path | None = None) -> int:
    options = PlaySpec(feed=DEMO_FEED, sink_uri=uri, config_path=config, engine="inline")
    summary = run_play(options)
    assert summary.verified is True
    return summary.partitions


def test_a_file_topic_counts_its_partitions(tmp_path: Path) -> None:
    assert _play(f"file://{tmp_path / 'out'}?protocol=simple&partition-num=3") == 3


def test_each_topic_the_dispatchers_route_to_counts(tmp_path: Path) -> None:
    config = tmp_path / "changefeed.toml"
    config.write_text(
        '[[sink.dispatchers]]\nmatcher = ["metrics.*"]\ntopic = "m_{schema}"\n', encoding="utf-8"
    )
    uri = f"file://{tmp_path / 'out'}?protocol=simple&topic=cdc&partition-num=2"
    assert _play(uri, config) == 4  # cdc and m_metrics, two partitions each


def test_the_storage_layout_has_no_partitions(tmp_path: Path) -> None:
    assert _play(f"file://{tmp_path / 'out'}?protocol=csv&date-separator=none") == 0


def test_a_topic_counts_whole_though_only_one_partition_was_written(tmp_path: Path) -> None:
    factory = SinkFactory(f"file://{tmp_path}?protocol=simple&partition-num=5")
    assert written_partitions(factory, {("cdc", 0): 7}) == 5
    assert written_partitions(factory, {}) == 0  # a sink that reports nothing written


def test_a_kafka_topic_counts_its_partitions(kafka_bootstrap: str) -> None:
    topic = unique_topic("summary-partitions")
    assert _play(f"kafka://{kafka_bootstrap}/{topic}?protocol=simple&partition-num=3") == 3
