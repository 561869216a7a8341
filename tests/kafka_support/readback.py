"""Read topics back with confluent-kafka (librdkafka): a client independent of aiokafka."""

from __future__ import annotations

import time
import uuid

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

Record = tuple[bytes | None, bytes | None]
QUIET_SECONDS = 0.5


def read_partition(
    bootstrap: str, topic: str, partition: int, expected: int, timeout: float = 30.0
) -> list[Record]:
    """Records of one partition from offset 0, as (key, value): at least ``expected`` of them,
    plus whatever else arrives in a quiet second after (so extra records are seen too).

    The high watermark is no stop signal: Tansu advances it by one per record *batch*.
    """
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"tisink-readback-{uuid.uuid4().hex}",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
        }
    )
    try:
        consumer.assign([TopicPartition(topic, partition, OFFSET_BEGINNING)])
        records: list[Record] = []
        deadline = time.monotonic() + timeout
        quiet_until = float("inf")
        while time.monotonic() < min(deadline, quiet_until):
            message = consumer.poll(0.2)
            if message is None:
                continue
            if message.error():
                raise KafkaException(message.error())
            records.append((message.key(), message.value()))
            if len(records) >= expected:
                quiet_until = time.monotonic() + QUIET_SECONDS
        if len(records) < expected:
            raise AssertionError(
                f"read {len(records)} of {expected} records of {topic}[{partition}] in {timeout}s"
            )
        return records
    finally:
        consumer.close()


def partition_count(bootstrap: str, topic: str) -> int:
    """Partitions of ``topic`` as librdkafka sees them."""
    metadata = AdminClient({"bootstrap.servers": bootstrap}).list_topics(topic, timeout=10)
    return len(metadata.topics[topic].partitions)


def create_topic(
    bootstrap: str, topic: str, partitions: int, config: dict[str, str] | None = None
) -> None:
    """Create ``topic`` through librdkafka, as an operator would before starting a changefeed."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    new = NewTopic(topic, num_partitions=partitions, replication_factor=1, config=config or {})
    for future in admin.create_topics([new], operation_timeout=10).values():
        future.result(timeout=15)


def unique_topic(prefix: str) -> str:
    """A topic name no other test uses (the session broker is shared)."""
    return f"{prefix}-{uuid.uuid4().hex[:10]}"
