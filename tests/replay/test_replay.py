"""tisink replay end to end: a play's file-sink folder replayed into Kafka verifies as the
original does; routing by key into fewer partitions keeps each key's order; --loop, --rate and
--speed; capture ranges and resume."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from pathlib import Path

import orjson
import pytest
from confluent_kafka import Producer

from tests.kafka_support.readback import create_topic, unique_topic
from tisink.eventsink.kafka import KafkaConfig
from tisink.play.run import PlaySpec, run_play
from tisink.replay.capture import capture_topic
from tisink.replay.errors import ReplayFailed
from tisink.replay.kafka_source import Bound, KafkaTopicSource
from tisink.replay.records import ReplayRecord, read_partition_file, record_line
from tisink.replay.routing import Routing
from tisink.replay.run import ReplayOptions, run_replay
from tisink.verify import verify


def _records(folder: Path, topic: str, partition: int) -> list[ReplayRecord]:
    path = folder / topic / f"partition-{partition}.jsonl"
    return [r for chunk in read_partition_file(path) for r in chunk]


def _write_capture(folder: Path, topic: str, parts: dict[int, list[ReplayRecord]]) -> None:
    (folder / topic).mkdir(parents=True)
    for partition, records in parts.items():
        data = b"".join(map(record_line, records))
        (folder / topic / f"partition-{partition}.jsonl").write_bytes(data)


@pytest.mark.parametrize("client", ["aiokafka", "librdkafka"])
def test_a_replayed_play_verifies(kafka_bootstrap: str, tmp_path: Path, client: str) -> None:
    folder = tmp_path / "play"
    played = run_play(
        PlaySpec(
            workload="demo",
            rows=3000,
            sink_uri=f"file://{folder}?protocol=simple&partition-num=3",
            engine="inline",
            clock="feed",
        )
    )
    assert played.verified is True
    topic = unique_topic("replayed")
    uri = f"kafka://{kafka_bootstrap}/{topic}?protocol=simple&partition-num=3&kafka-client={client}"
    summary = run_replay(ReplayOptions(source=str(folder), sink_uri=uri))
    assert summary.rows == sum(played.messages.values())
    assert summary.latency_ms["count"] == summary.rows and summary.series
    report = verify(uri, timeout_s=10)
    assert report.ok, report.to_dict()
    assert report.messages == summary.rows


def test_key_routing_into_fewer_partitions_keeps_each_keys_order(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    parts = {
        p: [
            ReplayRecord(i, f"key-{(i * 3 + p) % 10}".encode(), f"{p}:{i}".encode(), (), None)
            for i in range(400)
        ]
        for p in range(3)
    }
    _write_capture(tmp_path / "cap", "t", parts)
    target = unique_topic("fewer")
    create_topic(kafka_bootstrap, target, 2)
    uri = f"kafka://{kafka_bootstrap}/{target}"
    with pytest.raises(Exception, match=rf"3 partitions and the target topic {target} 2"):
        run_replay(ReplayOptions(source=str(tmp_path / "cap"), sink_uri=uri))
    summary = run_replay(
        ReplayOptions(source=str(tmp_path / "cap"), sink_uri=uri, routing=Routing.key, loops=2)
    )
    assert summary.rows == 2400
    out = tmp_path / "back"  # read back with librdkafka
    reader = KafkaTopicSource(KafkaConfig.from_sink_params(kafka_bootstrap, target, {}), 10)
    try:
        capture_topic(reader, out)
    finally:
        reader.close()
    by_key: dict[bytes | None, list[list[bytes]]] = defaultdict(list)
    for partition in range(2):
        seen: dict[bytes | None, list[bytes]] = defaultdict(list)
        for record in _records(out, target, partition):
            seen[record.key].append(record.value or b"")
        for key, values in seen.items():
            by_key[key].append(values)
    for key, lists in by_key.items():
        assert len(lists) == 1, f"{key!r} landed in two partitions"
        expected = [r.value for p in range(3) for r in parts[p] if r.key == key]
        values = lists[0]
        # each source partition's records of a key keep their order, in both passes
        for p in range(3):
            own = [v for v in values if v.startswith(f"{p}:".encode())]
            mine = [r.value for r in parts[p] if r.key == key]
            assert own == mine + mine
        assert sorted(values) == sorted(expected + expected)


def test_pacing_options(kafka_bootstrap: str, tmp_path: Path) -> None:
    parts = {0: [ReplayRecord(i, None, b"v", (), None) for i in range(300)]}
    _write_capture(tmp_path / "cap", "t", parts)
    uri = f"file://{tmp_path / 'out'}?partition-num=1"
    summary = run_replay(ReplayOptions(source=str(tmp_path / "cap"), sink_uri=uri, rate=200.0))
    assert summary.rate is not None and summary.rate["target"] == 200.0
    assert summary.elapsed_s >= 1.4  # 300 records at 200/s: 1.5 s of slots
    with pytest.raises(Exception, match="without a timestamp"):
        run_replay(ReplayOptions(source=str(tmp_path / "cap"), sink_uri=uri, speed=2.0))
    with pytest.raises(ReplayFailed, match="--rate or --speed"):
        run_replay(ReplayOptions(source=str(tmp_path / "cap"), sink_uri=uri, speed=2.0, rate=1.0))
    with pytest.raises(ReplayFailed, match="kafka:// or file://"):
        run_replay(ReplayOptions(source=str(tmp_path / "cap"), sink_uri="blackhole://"))


def test_speed_follows_the_source_timestamps(tmp_path: Path) -> None:
    stamps = [0, 0, 300, 600, 900, 1200]
    parts = {
        p: [ReplayRecord(i, None, b"v", (), 1_700_000_000_000 + s) for i, s in enumerate(stamps)]
        for p in range(2)
    }
    _write_capture(tmp_path / "cap", "t", parts)
    uri = f"file://{tmp_path / 'out'}?partition-num=2"
    summary = run_replay(ReplayOptions(source=str(tmp_path / "cap"), sink_uri=uri, speed=2.0))
    # 1.2 s of source time at speed 2: 0.6 s; line rate would take milliseconds
    assert summary.rows == 12 and summary.elapsed_s >= 0.55
    assert [r.value for r in _records(tmp_path / "out", "tidb-cdc", 1)] == [b"v"] * 6


def test_capture_ranges_and_resume(kafka_bootstrap: str, tmp_path: Path) -> None:
    topic = unique_topic("ranges")
    create_topic(kafka_bootstrap, topic, 2)
    producer = Producer({"bootstrap.servers": kafka_bootstrap})
    for i in range(100):
        producer.produce(topic, value=b"%d" % i, partition=i % 2, timestamp=1_000_000 + i)
    assert producer.flush(30) == 0
    config = KafkaConfig.from_sink_params(kafka_bootstrap, topic, {})

    def capture(out: Path, **kwargs: object) -> list[list[int]]:
        source = KafkaTopicSource(config, 10)
        try:
            capture_topic(source, out, **kwargs)  # type: ignore[arg-type]
        finally:
            source.close()
        return [
            [r.offset for r in _records(out, topic, p)]
            if (out / topic / f"partition-{p}.jsonl").exists()
            else []
            for p in range(2)
        ]

    assert capture(tmp_path / "a", partitions=[1], start=Bound(offset=45)) == [
        [],
        list(range(45, 50)),
    ]
    # timestamps 1_000_020.. are records 20.. (partition 0: offsets 10..; partition 1: 10..)
    assert capture(
        tmp_path / "b", start=Bound(timestamp_ms=1_000_020), end=Bound(timestamp_ms=1_000_030)
    ) == [list(range(10, 15)), list(range(10, 15))]
    # a capture cut short (a torn line) and run again holds every record once
    first = capture(tmp_path / "c", end=Bound(offset=20))
    assert first == [list(range(20)), list(range(20))]
    path = tmp_path / "c" / topic / "partition-0.jsonl"
    path.write_bytes(path.read_bytes() + b'{"offset":20,"ke')
    assert capture(tmp_path / "c") == [list(range(50)), list(range(50))]
    assert [r.timestamp_ms for r in _records(tmp_path / "c", topic, 0)][:2] == [
        1_000_000,
        1_000_002,
    ]


def test_a_bad_line_fails_the_replay_naming_file_and_line(tmp_path: Path) -> None:
    _write_capture(tmp_path / "cap", "t", {0: [ReplayRecord(0, None, b"v", (), None)]})
    path = tmp_path / "cap" / "t" / "partition-0.jsonl"
    path.write_bytes(path.read_bytes() + b'{"offset":1,"key":null,"value":"!!"}\n')
    with pytest.raises(Exception, match=r"partition-0\.jsonl:2: bad record"):
        run_replay(ReplayOptions(source=str(tmp_path / "cap"), sink_uri=f"file://{tmp_path}/o"))


def test_a_kafka_topic_replays_into_another(kafka_bootstrap: str, tmp_path: Path) -> None:
    source, target = unique_topic("k-src"), unique_topic("k-dst")
    create_topic(kafka_bootstrap, source, 2)
    producer = Producer({"bootstrap.servers": kafka_bootstrap})
    for i in range(200):
        headers = [("i", b"%d" % i)] if i % 2 else None
        producer.produce(
            source,
            value=b"v%d" % i,
            key=b"k%d" % (i % 5),
            partition=i % 2,
            headers=headers,
            timestamp=1_000_000 + 10 * i,
        )
    assert producer.flush(30) == 0
    summary = run_replay(
        ReplayOptions(
            source=f"kafka://{kafka_bootstrap}/{source}",
            sink_uri=f"kafka://{kafka_bootstrap}/{target}?partition-num=2",
            speed=20.0,
            loops=2,
        )
    )
    # 2 s of source time (10 ms apart) at speed 20 is 0.1 s a pass
    assert summary.rows == 400 and summary.elapsed_s >= 0.15
    config = KafkaConfig.from_sink_params(kafka_bootstrap, source, {})
    back = {}
    for topic in (source, target):
        reader = KafkaTopicSource(dataclasses.replace(config, topic=topic), 10)
        try:
            capture_topic(reader, tmp_path / topic)
        finally:
            reader.close()
        back[topic] = [
            [(r.key, r.value, r.headers) for r in _records(tmp_path / topic, topic, p)]
            for p in range(2)
        ]
    assert back[target] == [part + part for part in back[source]]


def test_speed_follows_commit_ts_in_a_file_sink_folder(tmp_path: Path) -> None:
    """A play's file-sink folder has no record timestamps: with its protocol named, --speed
    paces by the commit ts of its messages (0.2 s of commit time at an eighth of its speed)."""
    folder = tmp_path / "play"
    run_play(
        PlaySpec(
            workload="demo",
            rows=400,
            sink_uri=f"file://{folder}?protocol=simple&partition-num=2",
            engine="inline",
            clock="feed",
            verify_after=False,
        )
    )
    source = f"file://{folder}?protocol=simple"
    with pytest.raises(Exception, match="without a timestamp"):
        run_replay(
            ReplayOptions(
                source=str(folder), sink_uri=f"file://{tmp_path}/a?partition-num=2", speed=4.0
            )
        )
    stamps = []
    for partition in range(2):
        for record in _records(folder, "tidb-cdc", partition):
            message = orjson.loads(record.value or b"{}")
            if message.get("commitTs"):
                stamps.append(message["commitTs"] >> 18)
    span_s = (max(stamps) - min(stamps)) / 1000
    summary = run_replay(
        ReplayOptions(source=source, sink_uri=f"file://{tmp_path}/b?partition-num=2", speed=0.125)
    )
    assert summary.rows == sum(len(_records(folder, "tidb-cdc", p)) for p in range(2))
    assert span_s >= 0.1
    assert summary.elapsed_s >= span_s / 0.125 * 0.9  # line rate takes a fraction of it
