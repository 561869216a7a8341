"""Kafka record headers end to end: KafkaProducer sends them, the verify reader (librdkafka)
hands them on with the key."""

from __future__ import annotations

from tests.kafka_support.readback import unique_topic
from tisink.codec.message import Headers
from tisink.eventsink.kafka import KafkaConfig, new_kafka_producer
from tisink.eventsink.kafka.reader import KafkaRecordReader


async def test_headers_and_keys_reach_the_verify_reader(kafka_bootstrap: str) -> None:
    topic = unique_topic("headers")
    config = KafkaConfig.from_sink_params(kafka_bootstrap, topic, {"partition-num": "1"})
    producer = await new_kafka_producer(config)
    try:
        await producer.send(
            topic,
            0,
            [(b"k", b"v0", (("ps", b"1"), ("ShardId", b"x"))), (None, b"v1"), (b"", b"v2", ())],
        )
    finally:
        await producer.close()
    seen: list[tuple[int, bytes | None, bytes | None, Headers]] = []
    with KafkaRecordReader({"bootstrap.servers": kafka_bootstrap}, timeout_s=15) as reader:
        unfinished = reader.read(
            [topic],
            lambda _t, _p, offset, value, key, headers: seen.append((offset, key, value, headers)),
        )
    assert unfinished == []
    assert seen == [
        (0, b"k", b"v0", (("ps", b"1"), ("ShardId", b"x"))),
        (1, None, b"v1", ()),
        (2, b"", b"v2", ()),
    ]
