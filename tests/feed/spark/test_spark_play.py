"""The Spark engine end to end on real local Spark (local[2]), read back independently.

One session serves the module; the local[1] play of the determinism test runs through the CLI
in a process of its own (one SparkContext per process).
"""

from __future__ import annotations

import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import orjson
import pytest

pytest.importorskip("pyspark")

from tests.output_files import output_files
from tisink.codec.message import MessageType
from tisink.eventsink.file import list_file_topics, read_file_topic
from tisink.feed.format.records import FeedDDL, FeedRow
from tisink.feed.play_spec import PlaySpec
from tisink.feed.spark import SparkPlayError, run_spark_play
from tisink.feed.spark.task_result import SparkRun
from tisink.feed.watermarks import points_of_intervals
from tisink.feed.workload import generate_feed, generate_records
from tisink.verify import verify

SEED = 4
PARTITIONS = 4
SCENARIO = """
name = "one-table"
rows = 2000
rate = 500
txn_size = [1, 4]
mix = { insert = 0.5, update = 0.4, delete = 0.1 }

[[tables]]
schema = "sbtest"
name = "sbtest1"
primary = ["id"]
columns = [
  { name = "id", type = "int", nullable = false },
  { name = "k", type = "int", nullable = false },
  { name = "c", type = "char(60)", nullable = false, size = [20, 60] },
]
"""
INDEX_VALUE = '[[sink.dispatchers]]\nmatcher = ["*.*"]\npartition = "index-value"\n'


def _play(**kwargs: Any) -> SparkRun:
    return run_spark_play(PlaySpec(seed=SEED, master="local[2]", clock="feed", **kwargs))


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _partitions(directory: Path) -> dict[tuple[str, int], list[dict[str, Any]]]:
    out: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for topic in list_file_topics(directory):
        for partition, _offset, _key, value in read_file_topic(directory, topic):
            out[(topic, partition)].append(orjson.loads(value))
    return out


def test_one_table_spreads_over_partitions_with_a_watermark_every_second(
    spark: Any, tmp_path: Path
) -> None:
    scenario = _write(tmp_path / "one-table.toml", SCENARIO)
    config = _write(tmp_path / "changefeed.toml", INDEX_VALUE)
    out = tmp_path / "out"
    uri = f"file://{out}?protocol=simple&partition-num={PARTITIONS}"
    summary = _play(workload=str(scenario), sink_uri=uri, config_path=config)
    assert verify(uri, config_path=config).ok
    records = list(generate_records(str(scenario), SEED, None))
    stamps = [r.row.commit_ts if isinstance(r, FeedRow) else r.commit_ts for r in records]  # type: ignore[union-attr]
    intervals = [(ts >> 18) // 1000 for ts in stamps]
    points = [*points_of_intervals(intervals, 1000), stamps[-1]]
    assert len(points) >= 4
    partitions = _partitions(out)
    assert len(partitions) == PARTITIONS
    dml = 0
    for messages in partitions.values():
        kinds = [m["type"] for m in messages]
        assert kinds.count("BOOTSTRAP") == 1 and kinds.index("BOOTSTRAP") < kinds.index("INSERT")
        assert [m["commitTs"] for m in messages if m["type"] == "WATERMARK"] == points
        dml += sum(kind in ("INSERT", "UPDATE", "DELETE") for kind in kinds)
    assert dml == summary.rows == summary.sink_stats.message_count(MessageType.DML) == 2000
    assert summary.sink_stats.message_count(MessageType.WATERMARK) == PARTITIONS * len(points)
    assert summary.checkpoint_ts == stamps[-1]
    assert summary.partitions == PARTITIONS
    assert summary.startup_s > 0 and summary.rows_per_s > 0


def _feed_with_a_key_change(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """The demo feed in two files, one UPDATE moved to a new primary key; returns the folder
    and that UPDATE."""
    whole = tmp_path / "whole.jsonl"
    generate_feed("demo", SEED, 1500, whole)
    lines = whole.read_bytes().splitlines(keepends=True)
    at = next(
        i
        for i, line in enumerate(lines)
        if b'"op":"UPDATE"' in line and b'"tableID":101' in line and i > len(lines) // 3
    )
    update = orjson.loads(lines[at])
    update["after"]["id"] = 4_000_000_000
    lines[at] = orjson.dumps(update) + b"\n"
    feed = tmp_path / "feed"
    feed.mkdir()
    half = len(lines) // 2
    (feed / "part-0.jsonl").write_bytes(b"".join(lines[:half]))
    (feed / "part-1.jsonl").write_bytes(b"".join(lines[half:]))
    return feed, update


def test_partition_files_are_the_same_bytes_on_local_1_and_local_2(
    spark: Any, tmp_path: Path
) -> None:
    feed, update = _feed_with_a_key_change(tmp_path)
    config = _write(tmp_path / "changefeed.toml", INDEX_VALUE)
    outs = {master: tmp_path / master.replace("[", "").replace("]", "") for master in ("1", "2")}
    uri = "file://{}?protocol=simple&partition-num=" + str(PARTITIONS)
    _play(feed=feed, sink_uri=uri.format(outs["2"]), config_path=config)
    tisink = Path(sys.executable).with_name("tisink")
    done = subprocess.run(
        [
            *(str(tisink), "play", "--feed", str(feed), "--master", "local[1]"),
            *("--clock", "feed", "--config", str(config), "--sink-uri", uri.format(outs["1"])),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert output_files(outs["1"]) == output_files(outs["2"])
    assert verify(uri.format(outs["2"]), config_path=config).ok
    # the split UPDATE: a DELETE of the old key and an INSERT of the new one, each routed on
    # its own key (as TiCDC routes them), in the same transaction
    # in its transaction, sorted deletes first in each partition (TiCDC's order after a split)
    txn = {
        partition: [m for m in messages if m["commitTs"] == update["commitTs"]]
        for (_, partition), messages in _partitions(outs["2"]).items()
    }
    halves = {(m["type"], (m.get("data") or m.get("old"))["id"]) for t in txn.values() for m in t}
    assert {("DELETE", str(update["before"]["id"])), ("INSERT", "4000000000")} <= halves
    for messages in txn.values():
        kinds = [m["type"] for m in messages]
        assert kinds == sorted(kinds, key=["DELETE", "UPDATE", "INSERT"].index)


def test_a_bad_line_mid_feed_stops_the_play_before_anything_is_written(
    spark: Any, tmp_path: Path
) -> None:
    feed = tmp_path / "feed"
    feed.mkdir()
    whole = tmp_path / "whole.jsonl"
    generate_feed("demo", SEED, 1500, whole)
    lines = whole.read_bytes().splitlines(keepends=True)
    half = len(lines) // 2
    (feed / "part-0.jsonl").write_bytes(b"".join(lines[:half]))
    second = lines[half:]
    bad_at = next(
        i
        for i, line in enumerate(second)
        if i > 20 and b'"type":"row"' in line and b'"op":"INSERT"' in line
    )
    bad = orjson.loads(second[bad_at])
    column = next(name for name, value in bad["after"].items() if isinstance(value, int))
    bad["after"][column] = "not a number"
    second[bad_at] = orjson.dumps(bad) + b"\n"
    (feed / "part-1.jsonl").write_bytes(b"".join(second))
    out = tmp_path / "out"
    with pytest.raises(SparkPlayError) as caught:
        _play(feed=feed, sink_uri=f"file://{out}?protocol=simple&partition-num=3")
    assert f"part-1.jsonl:{bad_at + 1}:" in str(caught.value)
    assert f"column {column}" in str(caught.value)
    assert caught.value.last_checkpoint_ts == 0
    assert not out.exists() or _partitions(out) == {}


def test_tencent_dts_to_kafka_numbers_each_partition_and_verifies(
    spark: Any, kafka_bootstrap: str
) -> None:
    from tests.kafka_support.readback import partition_count, unique_topic

    topic = unique_topic("spark-dts")
    uri = f"kafka://{kafka_bootstrap}/{topic}?protocol=tencent-dts&partition-num=3"
    summary = _play(workload="demo", rows=1200, sink_uri=uri)
    assert partition_count(kafka_bootstrap, topic) == 3
    assert summary.rows == 1200
    acknowledged = summary.acknowledged
    assert set(acknowledged) == {(topic, p) for p in range(3)}
    report = verify(uri, timeout_s=20, acknowledged=acknowledged)
    assert report.ok, [str(v) for v in report.violations]
    assert report.messages == summary.sink_stats.message_count() == sum(acknowledged.values())
    beyond = verify(uri, timeout_s=20, acknowledged={**acknowledged, (topic, 1): 10**6})
    assert beyond.violation_counts == {"acknowledged-stored": 1}


def test_a_sink_without_partitions_is_one_task(spark: Any) -> None:
    summary = _play(workload="all-types", rows=300, sink_uri="blackhole://")
    assert summary.rows == 300
    assert summary.partitions == 0
    ddls = [r for r in generate_records("all-types", SEED, 300) if isinstance(r, FeedDDL)]
    assert summary.ddl == len(ddls)
