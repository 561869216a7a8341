"""The Spark engine end to end on real local Spark (local[2]), read back independently."""

from __future__ import annotations

import shutil
from collections import defaultdict
from pathlib import Path
from typing import Any

import orjson
import pytest

pytest.importorskip("pyspark")

from tisink.eventsink.file import list_file_topics, read_file_topic
from tisink.feed.records import FeedRow
from tisink.feed.spark import SparkPlayError, run_spark_play
from tisink.feed.spark.session import spark_session
from tisink.feed.workload import generate_feed, generate_records

ROWS = 1500
SEED = 4


@pytest.fixture(scope="session")
def spark() -> Any:
    session = spark_session("local[2]")
    yield session
    session.stop()


def _play(spark: Any, **kwargs: Any) -> dict[str, Any]:
    options: dict[str, Any] = {
        "feed_path": None,
        "workload": None,
        "seed": SEED,
        "rows": None,
        "config_path": None,
        "master": "local[2]",
        "feed_clock": True,
        "rate": None,
    }
    options.update(kwargs)
    return run_spark_play(**options)


def _partitions(directory: Path) -> dict[tuple[str, int], list[dict[str, Any]]]:
    out: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for topic in list_file_topics(directory):
        for partition, offset, _key, value in read_file_topic(directory, topic):
            message = orjson.loads(value)
            message["_offset"] = offset
            out[(topic, partition)].append(message)
    return out


def _check_partition(messages: list[dict[str, Any]]) -> int:
    """Bootstrap/DDL before each table's DML, monotone watermarks, no DML <= a watermark
    after it, offsets counting from 0; returns the partition's DML count."""
    assert [m["_offset"] for m in messages] == list(range(len(messages)))
    announced: set[int] = set()
    watermark = 0
    dml = 0
    for message in messages:
        kind = message["type"]
        if "tableSchema" in message:
            announced.add(message["tableSchema"]["tableID"])
        if kind == "WATERMARK":
            assert message["commitTs"] >= watermark
            watermark = message["commitTs"]
        elif kind in ("INSERT", "UPDATE", "DELETE"):
            dml += 1
            assert message["tableID"] in announced, message
            assert message["commitTs"] > watermark, message
    return dml


def test_workload_to_file_sink(spark: Any, tmp_path: Path) -> None:
    out = tmp_path / "out"
    summary = _play(
        spark,
        workload="demo",
        rows=ROWS,
        sink_uri=f"file://{out}?protocol=simple&partition-num=3",
        epoch_ms=200,
    )
    partitions = _partitions(out)
    assert len(partitions) == 3
    assert sum(_check_partition(m) for m in partitions.values()) == ROWS
    assert summary["rows"] == ROWS
    assert summary["messages"]["DML"] == ROWS
    assert summary["epochs"] > 1 and summary["watermarks"] == summary["epochs"]
    last = [r.row.commit_ts for r in generate_records("demo", SEED, ROWS) if isinstance(r, FeedRow)]
    assert summary["checkpoint_ts"] == max(last)
    for messages in partitions.values():
        assert messages[-1]["type"] == "WATERMARK"
        assert messages[-1]["commitTs"] == summary["checkpoint_ts"]


def test_feed_folder_with_a_bad_line_stops_that_table(spark: Any, tmp_path: Path) -> None:
    feed = tmp_path / "feed"
    feed.mkdir()
    whole = tmp_path / "whole.jsonl"
    generate_feed("demo", SEED, ROWS, whole)
    lines = whole.read_bytes().splitlines(keepends=True)
    half = len(lines) // 2
    (feed / "part-0.jsonl").write_bytes(b"".join(lines[:half]))
    second = lines[half:]
    # a row whose value does not fit its column, in the second file
    bad_at = next(
        i for i, line in enumerate(second) if b'"type":"row"' in line and b'"op":"INSERT"' in line
    )
    bad = orjson.loads(second[bad_at])
    column = next(name for name, value in bad["after"].items() if isinstance(value, int))
    bad["after"][column] = "not a number"
    second[bad_at] = orjson.dumps(bad) + b"\n"
    (feed / "part-1.jsonl").write_bytes(b"".join(second))
    out = tmp_path / "out"
    with pytest.raises(SparkPlayError) as caught:
        _play(spark, feed_path=str(feed), sink_uri=f"file://{out}?protocol=simple&partition-num=3")
    err = caught.value
    assert f"part-1.jsonl:{bad_at + 1}:" in str(err)
    assert f"column {column}" in str(err)
    assert err.last_checkpoint_ts < bad["commitTs"]
    assert "Traceback" in err.task["traceback"]
    table_id = bad["tableID"]
    for messages in _partitions(out).values():
        later = [
            m
            for m in messages
            if m.get("tableID") == table_id and m["type"] in ("INSERT", "UPDATE", "DELETE")
        ]
        assert all(m["commitTs"] < bad["commitTs"] for m in later)
        for m in messages:
            if m["type"] == "WATERMARK":
                assert m["commitTs"] <= err.last_checkpoint_ts


def test_unroutable_line_fails_before_anything_is_written(spark: Any, tmp_path: Path) -> None:
    feed = tmp_path / "feed"
    feed.mkdir()
    generate_feed("all-types", SEED, 50, feed / "a.jsonl")
    with (feed / "a.jsonl").open("ab") as fh:
        fh.write(b'{"type":"row", broken\n')
    out = tmp_path / "out"
    with pytest.raises(Exception, match=r"a\.jsonl:\d+:"):
        _play(spark, feed_path=str(feed), sink_uri=f"file://{out}?protocol=simple")
    assert not out.exists() or not list_file_topics(out)


def test_workload_to_kafka_read_back_with_confluent_kafka(spark: Any, kafka_bootstrap: str) -> None:
    from tests.kafka_support.readback import partition_count, read_partition, unique_topic

    topic = unique_topic("spark-play")
    summary = _play(
        spark,
        workload="all-types",
        rows=300,
        sink_uri=f"kafka://{kafka_bootstrap}/{topic}?protocol=simple&partition-num=3",
    )
    assert partition_count(kafka_bootstrap, topic) == 3
    total = 0
    counts = summary["sink_stats"]
    per_partition_min = 1  # every partition gets at least the final watermark
    for partition in range(3):
        records = read_partition(kafka_bootstrap, topic, partition, per_partition_min, timeout=30)
        messages = [orjson.loads(value) for _key, value in records]
        for offset, message in enumerate(messages):
            message["_offset"] = offset
        total += _check_partition(messages)
        assert messages[-1]["type"] == "WATERMARK"
    assert total == 300 == counts["dml_messages"]


def test_cleanup_of_spark_worker_files(tmp_path: Path) -> None:
    """Side files of the file producer stay hidden from the file sink's reader."""
    out = tmp_path / "o"
    (out / "t").mkdir(parents=True)
    (out / "t" / ".partition-0.next").write_text("0 0")
    assert list_file_topics(out) == []
    shutil.rmtree(out)
