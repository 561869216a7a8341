"""Topic creation, existing topics' partition counts and max-message-bytes lowering."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
from confluent_kafka.admin import AdminClient, ConfigResource, ResourceType

from tests.kafka_support.readback import create_topic, partition_count, unique_topic
from tisink.eventsink.kafka import (
    KafkaConfig,
    KafkaConfigError,
    KafkaTopicManager,
    new_kafka_producer,
)


def _config(bootstrap: str, topic: str, **changes: object) -> KafkaConfig:
    return dataclasses.replace(KafkaConfig.from_sink_params(bootstrap, topic, {}), **changes)


async def test_default_topic_is_created_with_partition_num(kafka_bootstrap: str) -> None:
    topic = unique_topic("create")
    producer = await new_kafka_producer(_config(kafka_bootstrap, topic, partition_num=5))
    try:
        assert await producer.partition_count(topic) == 5
        other = unique_topic("routed")
        assert await producer.partition_count(other) == 5
    finally:
        await producer.close()
    assert partition_count(kafka_bootstrap, topic) == 5
    assert partition_count(kafka_bootstrap, other) == 5


async def test_unset_partition_num_creates_three(kafka_bootstrap: str) -> None:
    topic = unique_topic("three")
    producer = await new_kafka_producer(_config(kafka_bootstrap, topic))
    await producer.close()
    assert partition_count(kafka_bootstrap, topic) == 3


@pytest.mark.parametrize("partition_num", [None, 1, 2])
async def test_existing_topic_keeps_its_partitions(
    kafka_bootstrap: str, partition_num: int | None
) -> None:
    topic = unique_topic("existing")
    await asyncio.to_thread(create_topic, kafka_bootstrap, topic, 2)
    config = _config(kafka_bootstrap, topic, partition_num=partition_num)
    producer = await new_kafka_producer(config)
    try:
        assert await producer.partition_count(topic) == 2
    finally:
        await producer.close()
    assert partition_count(kafka_bootstrap, topic) == 2


async def test_partition_num_above_existing_topic_is_refused(kafka_bootstrap: str) -> None:
    topic = unique_topic("toofew")
    await asyncio.to_thread(create_topic, kafka_bootstrap, topic, 2)
    with pytest.raises(KafkaConfigError, match=rf"partition-num 4 .* 2 partitions .*{topic}"):
        await new_kafka_producer(_config(kafka_bootstrap, topic, partition_num=4))


async def test_no_auto_create_refuses_a_missing_topic(kafka_bootstrap: str) -> None:
    topic = unique_topic("absent")
    with pytest.raises(KafkaConfigError, match=rf"topic {topic} does not exist"):
        await new_kafka_producer(_config(kafka_bootstrap, topic, auto_create_topic=False))
    manager = await KafkaTopicManager.connect(_config(kafka_bootstrap, "unused"))
    try:
        assert await manager.describe_partitions(topic) is None  # the lookup created nothing
    finally:
        await manager.close()


@pytest.mark.parametrize(("configured", "expected"), [(10 << 20, 50_000 - 128), (1000, 1000)])
async def test_max_message_bytes_lowered_to_the_topic_limit(
    kafka_bootstrap: str, configured: int, expected: int
) -> None:
    topic = unique_topic("limit")
    config = {"max.message.bytes": "50000"}
    await asyncio.to_thread(create_topic, kafka_bootstrap, topic, 1, config)
    producer = await new_kafka_producer(
        _config(kafka_bootstrap, topic, max_message_bytes=configured)
    )
    await producer.close()
    assert producer.max_message_bytes == expected


def _broker_message_max_bytes(bootstrap: str) -> int | None:
    """message.max.bytes as librdkafka's admin client reads it; None when not reported."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    broker_id = min(admin.list_topics(timeout=10).brokers)
    resource = ConfigResource(ResourceType.BROKER, str(broker_id))
    configs = next(iter(admin.describe_configs([resource]).values())).result(timeout=10)
    entry = configs.get("message.max.bytes")
    return int(entry.value) if entry is not None and entry.value is not None else None


async def test_new_topic_uses_the_broker_limit_when_reported(kafka_bootstrap: str) -> None:
    reported = await asyncio.to_thread(_broker_message_max_bytes, kafka_bootstrap)
    configured = 64 << 20
    producer = await new_kafka_producer(
        _config(kafka_bootstrap, unique_topic("brokerlimit"), max_message_bytes=configured)
    )
    await producer.close()
    expected = configured if reported is None else min(configured, reported - 128)
    assert producer.max_message_bytes == expected
