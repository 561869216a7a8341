"""The librdkafka producer's proof that a send is whole from its first and last offsets alone,
and the read-back when the run is longer, against a real broker."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import threading

import pytest
from confluent_kafka import Producer
from confluent_kafka import Producer as ConfluentProducer

from tests.kafka_support.readback import create_topic, read_partition, unique_topic
from tisink.codec.message import Record
from tisink.eventsink.kafka import KafkaConfig, new_kafka_producer, rdkafka_enqueue
from tisink.eventsink.kafka.errors import KafkaSinkError
from tisink.eventsink.kafka.rdkafka_enqueue import EndsReport
from tisink.eventsink.kafka.rdkafka_producer import (
    CLIENTS_MAX,
    RdKafkaProducer,
    producer_settings,
)
from tisink.eventsink.kafka.readback import records_held
from tisink.eventsink.kafka.reader import DebugLogger
from tisink.eventsink.kafka.topic_manager import KafkaTopicManager


def _config(bootstrap: str, topic: str) -> KafkaConfig:
    config = KafkaConfig.from_sink_params(bootstrap, topic, {})
    return dataclasses.replace(config, client="librdkafka")


def _records(tag: str, count: int) -> list[Record]:
    return [(f"{tag}{i}".encode(), f"{tag}-value-{i:05d}".encode()) for i in range(count)]


def _write(bootstrap: str, topic: str, records: list[Record]) -> None:
    """Plain confluent-kafka writes to partition 0, in order."""
    producer = Producer({"bootstrap.servers": bootstrap})
    for key, value in records:
        producer.produce(topic, value, key, 0)
    assert producer.flush(30) == 0


async def test_a_run_with_foreign_records_and_copies_is_read_back(kafka_bootstrap: str) -> None:
    topic = unique_topic("readback")
    producer = await new_kafka_producer(_config(kafka_bootstrap, topic))
    await producer.close()  # the topic exists now
    ours = _records("o", 6)
    foreign = _records("f", 2)
    # ours with another producer's records and a copied record in between
    log = [ours[0], foreign[0], ours[1], ours[2], ours[2], ours[3], foreign[1], ours[4], ours[5]]
    await asyncio.to_thread(_write, kafka_bootstrap, topic, log)
    config = _config(kafka_bootstrap, topic)
    debug = DebugLogger(logging.getLogger(__name__))
    held = await asyncio.to_thread(records_held, config, topic, 0, 0, len(log) - 1, ours, debug)
    assert held == len(ours)
    # a record of the send missing from the run
    missing = [*ours[:3], (b"x", b"not ours"), *ours[4:]]
    held = await asyncio.to_thread(records_held, config, topic, 0, 0, len(log) - 1, missing, debug)
    assert held == 3


async def test_sends_beside_another_producer_pass_and_keep_the_real_end(
    kafka_bootstrap: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Another producer writing the same partition makes runs longer than the sends; they
    are read back, pass, and the acknowledged end is the run's."""
    topic = unique_topic("beside")
    producer = await new_kafka_producer(_config(kafka_bootstrap, topic))
    stop = threading.Event()

    def other() -> None:
        client = Producer({"bootstrap.servers": kafka_bootstrap, "linger.ms": 0})
        index = 0
        while not stop.is_set():
            client.produce(topic, f"other-{index}".encode(), b"other", 0)
            client.poll(0.001)
            index += 1
        assert client.flush(30) == 0

    caplog.set_level(logging.INFO, "tisink.eventsink.kafka.rdkafka_producer")
    # sends of 4 MB: several produce requests each, so the other's records land inside
    ours = [(key, value.ljust(2048, b".")) for key, value in _records("o", 6001)]
    writer = threading.Thread(target=other)
    try:
        await producer.send(topic, 0, ours[:1])  # the topic exists before the other writes
        writer.start()
        for start in range(1, len(ours), 2000):
            await producer.send(topic, 0, ours[start : start + 2000])
    finally:
        stop.set()
        writer.join()
        await producer.close()
    assert "reading them back" in caplog.text  # the runs were longer than the sends
    end = producer.acknowledged_offsets()[(topic, 0)]
    log = await asyncio.to_thread(read_partition, kafka_bootstrap, topic, 0, end)
    assert [record for record in log if record[0] != b"other"] == ours


async def test_a_run_shorter_than_the_send_fails_naming_the_partition(
    kafka_bootstrap: str,
) -> None:
    """Offsets 10 to 14 for 6 records: a record was not written (a gap-free log), whatever
    the reports of the first and last say."""
    topic = unique_topic("short")
    producer = await new_kafka_producer(_config(kafka_bootstrap, topic))
    assert isinstance(producer, RdKafkaProducer)
    report = EndsReport(6)
    report.first, report.last = 10, 14
    try:
        with pytest.raises(KafkaSinkError, match=rf"topic {topic} partition 1: .* hold 5 of them"):
            await producer._acknowledged(topic, 1, _records("s", 6), report)
    finally:
        await producer.close()
    assert producer.acknowledged_offsets() == {}


async def test_overlapping_sends_to_a_partition_keep_their_order(kafka_bootstrap: str) -> None:
    """Sends to one partition started together queue in the order they were called; each
    returns once its own records are acknowledged and the end counts them all."""
    topic = unique_topic("overlap")
    producer = await new_kafka_producer(_config(kafka_bootstrap, topic))
    ours = _records("o", 2000)
    try:
        await asyncio.gather(
            *(producer.send(topic, 0, ours[i : i + 250]) for i in range(0, 2000, 250))
        )
    finally:
        await producer.close()
    assert producer.acknowledged_offsets() == {(topic, 0): 2000}
    assert await asyncio.to_thread(read_partition, kafka_bootstrap, topic, 0, 2000) == ours


async def test_a_send_after_a_failed_one_fails_too(
    kafka_bootstrap: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The next send of the partition queued while the first waited; when the first fails,
    the next cannot take in its offsets and fails naming the first's error."""
    topic = unique_topic("after")
    producer = await new_kafka_producer(_config(kafka_bootstrap, topic))
    assert isinstance(producer, RdKafkaProducer)
    take_in = producer._acknowledged
    calls = 0

    async def first_fails(*args: object) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise KafkaSinkError("the broker said no")
        await take_in(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(producer, "_acknowledged", first_fails)
    try:
        first, second = await asyncio.gather(
            producer.send(topic, 0, _records("a", 10)),
            producer.send(topic, 0, _records("b", 10)),
            return_exceptions=True,
        )
    finally:
        await producer.close()
    assert isinstance(first, KafkaSinkError)
    assert isinstance(second, KafkaSinkError)
    assert "followed a send that failed: the broker said no" in str(second)
    assert producer.acknowledged_offsets() == {}


async def test_a_full_queue_makes_a_send_wait_and_keeps_the_order(
    kafka_bootstrap: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """librdkafka's queue holds 50 records here: sends of hundreds wait for room and resume at
    the refused record, first and last reports included."""
    refusals: list[int] = []

    class Counted(rdkafka_enqueue._QueueFull):
        def __init__(self, index: int) -> None:
            super().__init__(index)
            refusals.append(index)

    monkeypatch.setattr(rdkafka_enqueue, "_QueueFull", Counted)
    topic = unique_topic("full")
    config = _config(kafka_bootstrap, topic)
    topics = await KafkaTopicManager.connect(config)
    client = ConfluentProducer(
        producer_settings(config, config.max_message_bytes) | {"queue.buffering.max.messages": 50}
    )
    producer = RdKafkaProducer(config, topics, [client], config.max_message_bytes)
    ours = _records("q", 1001)
    try:
        await producer.send(topic, 0, ours[:1])
        for start in (1, 301):
            await producer.send(topic, 0, ours[start : start + 300])
        await asyncio.gather(
            producer.send(topic, 0, ours[601:1000]), producer.send(topic, 0, ours[1000:])
        )
    finally:
        await producer.close()
    assert len(refusals) >= 10  # the queue was full many times
    assert producer.acknowledged_offsets() == {(topic, 0): 1001}
    assert await asyncio.to_thread(read_partition, kafka_bootstrap, topic, 0, 1001) == ours


@pytest.mark.parametrize(("partitions", "clients"), [(1, 1), (3, 3), (6, CLIENTS_MAX)])
async def test_each_partition_group_has_a_client_and_keeps_its_order(
    kafka_bootstrap: str, partitions: int, clients: int
) -> None:
    """Partition p is always produced by client p % n: concurrent sends to every partition
    land whole and in order, each partition's through one client."""
    topic = unique_topic("clients")
    await asyncio.to_thread(create_topic, kafka_bootstrap, topic, partitions)
    producer = await new_kafka_producer(_config(kafka_bootstrap, topic))
    assert isinstance(producer, RdKafkaProducer)
    assert producer.client_count == clients
    sent = {p: _records(f"p{p}-", 120) for p in range(partitions)}
    try:
        await asyncio.gather(
            *(
                producer.send(topic, p, part)
                for p, records in sent.items()
                for part in (records[:40], records[40:])
            )
        )
    finally:
        await producer.close()
    for p, records in sent.items():
        assert await asyncio.to_thread(read_partition, kafka_bootstrap, topic, p, 120) == records
