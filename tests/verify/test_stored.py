"""verify against what the sink acknowledged, and the file sink's offset continuity."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from tests.kafka_support.readback import unique_topic
from tisink.eventsink.file import partition_file
from tisink.eventsink.kafka import KafkaConfig, new_kafka_producer
from tisink.play.run import PlaySpec, run_play
from tisink.sink.providers import DEFAULT_FILE_TOPIC
from tisink.verify import verify

TOPIC = DEFAULT_FILE_TOPIC


def _played(tmp_path: Path) -> str:
    uri = f"file://{tmp_path / 'out'}?protocol=simple&partition-num=3"
    run_play(PlaySpec(workload="demo", rows=300, sink_uri=uri, engine="inline"))
    return uri


def _lines(tmp_path: Path, partition: int) -> list[bytes]:
    return partition_file(tmp_path / "out", TOPIC, partition).read_bytes().splitlines()


def test_a_file_partition_with_a_missing_offset_is_named(tmp_path: Path) -> None:
    uri = _played(tmp_path)
    assert verify(uri).ok
    path = partition_file(tmp_path / "out", TOPIC, 1)
    lines = _lines(tmp_path, 1)
    del lines[5]
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    report = verify(uri)
    assert report.violation_counts == {"offsets-continuous": 1}
    (violation,) = report.violations
    assert (violation.topic, violation.partition, violation.offset) == (TOPIC, 1, 6)
    assert "1 record(s) missing" in violation.detail


def test_file_partitions_holding_less_than_acknowledged_are_named(tmp_path: Path) -> None:
    uri = _played(tmp_path)
    ends = {(TOPIC, p): len(_lines(tmp_path, p)) for p in range(3)}
    assert verify(uri, acknowledged=ends).ok
    report = verify(uri, acknowledged={**ends, (TOPIC, 2): ends[TOPIC, 2] + 4})
    assert report.violation_counts == {"acknowledged-stored": 1}
    (violation,) = report.violations
    assert (violation.partition, violation.offset) == (2, ends[TOPIC, 2])
    assert "the broker lost 4" in violation.detail
    gone = verify(uri, acknowledged={("vanished", 0): 3})
    assert [(v.topic, v.rule) for v in gone.violations] == [("vanished", "acknowledged-stored")]


async def test_kafka_acknowledged_ends_match_what_the_topic_holds(kafka_bootstrap: str) -> None:
    """The producer's acknowledged ends (base offset + count per batch) are the offsets a
    consumer reads back from the broker, so verify passes on them and fails past them."""
    topic = unique_topic("acked")
    config = dataclasses.replace(
        KafkaConfig.from_sink_params(kafka_bootstrap, topic, {}), max_batch_bytes=2048
    )
    producer = await new_kafka_producer(config)
    try:
        for partition in range(3):
            records = [(b"", b'{"x": %d}' % i) for i in range(40 * (partition + 1))]
            await producer.send(topic, partition, records[:15])
            await producer.send(topic, partition, records[15:])
        ends = producer.offsets.ends()
    finally:
        await producer.close()
    assert ends == {(topic, p): 40 * (p + 1) for p in range(3)}
    uri = f"kafka://{kafka_bootstrap}/{topic}?protocol=simple&partition-num=3"
    report = verify(uri, acknowledged=ends, timeout_s=20)
    assert report.violation_counts.get("acknowledged-stored", 0) == 0
    short = verify(uri, acknowledged={**ends, (topic, 1): 81}, timeout_s=20)
    assert short.violation_counts["acknowledged-stored"] == 1
