"""capture -> replay -> capture against Apache Kafka: every partition's records (key, value,
headers, order) come back byte-identical, as confluent-kafka reads them, and each capture stops
once it has caught up with the topic."""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
from typer.testing import CliRunner

from tests.kafka_support.readback import create_topic, unique_topic
from tisink.cli import app
from tisink.replay.records import read_partition_file

Seen = tuple[bytes | None, bytes | None, tuple[tuple[str, bytes], ...]]
"""A record as a client sees it: key, value (None: a tombstone), headers."""
PARTITIONS = 3


def _produce(bootstrap: str, topic: str, count: int) -> dict[int, list[Seen]]:
    """Records with keys, null keys, headers (some repeated names, empty values), values of
    every byte and tombstones (TiCDC's avro DELETE: a key, no value), through librdkafka;
    what each partition holds, in offset order (from the delivery reports: a retried batch
    may land after later ones)."""
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    placed: dict[int, list[tuple[int, Seen]]] = {p: [] for p in range(PARTITIONS)}

    def delivered(error: object, message: Any, record: Seen) -> None:
        assert error is None, error
        placed[message.partition()].append((message.offset(), record))

    for i in range(count):
        partition = (i * 7) % PARTITIONS
        key = None if i % 11 == 0 else f"key-{i % 37}".encode()
        value = None if i % 13 == 5 else bytes(range(256))[i % 256 :] + f"#{i}".encode()
        headers: tuple[tuple[str, bytes], ...] = ()
        if i % 3 == 0:
            headers = (("seq", str(i).encode()), ("seq", b""), ("bin", b"\x00\xff"))
        record: Seen = (key, value, headers)
        producer.produce(
            topic,
            value=value,
            key=key,
            partition=partition,
            headers=list(headers) or None,
            on_delivery=lambda err, msg, record=record: delivered(err, msg, record),
        )
        if i % 500 == 0:
            producer.poll(0)
    assert producer.flush(30) == 0
    sent = {p: [record for _, record in sorted(placed[p])] for p in range(PARTITIONS)}
    assert sum(map(len, sent.values())) == count
    return sent


def _read(bootstrap: str, topic: str, partition: int, expected: int) -> list[Seen]:
    """One partition from the beginning with librdkafka, at least ``expected`` records plus any
    that arrive in a quiet second after."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"rt-{uuid.uuid4().hex}",
            "enable.auto.commit": False,
        }
    )
    try:
        consumer.assign([TopicPartition(topic, partition, OFFSET_BEGINNING)])
        out: list[Seen] = []
        deadline, quiet = time.monotonic() + 30, float("inf")
        while time.monotonic() < min(deadline, quiet):
            message = consumer.poll(0.2)
            if message is None:
                continue
            assert message.error() is None, message.error()
            out.append((message.key(), message.value(), tuple(message.headers() or ())))
            if len(out) >= expected and quiet == float("inf"):
                quiet = time.monotonic() + 1.0
        return out
    finally:
        consumer.close()


def _captured(folder: Path, topic: str, partition: int) -> list[Seen]:
    path = folder / topic / f"partition-{partition}.jsonl"
    return [(r.key, r.value, r.headers) for chunk in read_partition_file(path) for r in chunk]


@pytest.mark.parametrize(
    ("client", "options"),
    [("aiokafka", []), ("librdkafka", []), ("librdkafka", ["--preload"])],
)
def test_capture_replay_capture_is_byte_identical(
    apache_kafka_bootstrap: str, tmp_path: Path, client: str, options: list[str]
) -> None:
    kafka_bootstrap = apache_kafka_bootstrap
    source, target = unique_topic("rt-src"), unique_topic("rt-dst")
    create_topic(kafka_bootstrap, source, PARTITIONS)
    sent = _produce(kafka_bootstrap, source, 3000)
    runner = CliRunner()

    first = runner.invoke(
        app,
        ["capture", "--from", f"kafka://{kafka_bootstrap}/{source}", "--out", str(tmp_path / "a")],
    )
    assert first.exit_code == 0, first.output
    for partition in range(PARTITIONS):
        assert _captured(tmp_path / "a", source, partition) == sent[partition]

    uri = f"kafka://{kafka_bootstrap}/{target}?partition-num={PARTITIONS}&kafka-client={client}"
    replayed = runner.invoke(app, ["replay", str(tmp_path / "a"), "--sink-uri", uri, *options])
    assert replayed.exit_code == 0, replayed.output
    assert "3000 rows acknowledged" in replayed.output

    for partition in range(PARTITIONS):
        got = _read(kafka_bootstrap, target, partition, len(sent[partition]))
        assert got == sent[partition], f"partition {partition}"

    second = runner.invoke(
        app,
        ["capture", "--from", f"kafka://{kafka_bootstrap}/{target}", "--out", str(tmp_path / "b")],
    )
    assert second.exit_code == 0, second.output
    for partition in range(PARTITIONS):
        assert _captured(tmp_path / "b", target, partition) == sent[partition]
