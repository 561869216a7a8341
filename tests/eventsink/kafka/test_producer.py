"""KafkaProducer against a real Kafka-protocol broker, read back with confluent-kafka."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
from collections.abc import Sequence

import pytest
from aiokafka import AIOKafkaProducer
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.kafka_support.readback import partition_count, read_partition, unique_topic
from tisink.codec.message import Record
from tisink.eventsink.kafka import KafkaConfig, KafkaProducer, new_kafka_producer


def _config(bootstrap: str, topic: str, **changes: object) -> KafkaConfig:
    return dataclasses.replace(KafkaConfig.from_sink_params(bootstrap, topic, {}), **changes)


def _messages(partition: int, count: int, size: int = 120) -> list[Record]:
    """DML-like records (empty key) with a DDL-like one (null key) every 100th."""
    out: list[Record] = []
    for i in range(count):
        value = f"p{partition}-{i:06d}-".encode().ljust(size, b"x")
        out.append((None if i % 100 == 99 else b"", value))
    return out


async def test_batches_to_three_partitions_read_back_in_order(
    kafka_bootstrap: str, kafka_client: str
) -> None:
    topic = unique_topic("order")
    producer = await new_kafka_producer(_config(kafka_bootstrap, topic, client=kafka_client))
    try:
        assert await producer.partition_count(topic) == 3
        sent = {p: _messages(p, 1500) for p in range(3)}
        chunks = [producer.send(topic, p, sent[p][i : i + 250]) for p in range(3) for i in (0, 250)]
        await asyncio.gather(*chunks)  # different partitions run side by side
        for p in range(3):
            await producer.send(topic, p, sent[p][500:])
    finally:
        await producer.close()
    assert partition_count(kafka_bootstrap, topic) == 3
    for p in range(3):
        records = await asyncio.to_thread(read_partition, kafka_bootstrap, topic, p, len(sent[p]))
        assert records == sent[p]


async def test_a_full_batch_starts_another(kafka_bootstrap: str) -> None:
    """aiokafka's batches (librdkafka batches inside its own queue)."""
    topic = unique_topic("split")
    producer = await new_kafka_producer(_config(kafka_bootstrap, topic, max_batch_bytes=4096))
    batches: list[int] = []
    client = producer._client
    submit = client.send_batch

    async def counting_send_batch(batch, topic, *, partition):  # type: ignore[no-untyped-def]
        batches.append(batch.record_count())
        return await submit(batch, topic, partition=partition)

    client.send_batch = counting_send_batch  # type: ignore[method-assign]
    messages = _messages(1, 400, size=100)
    try:
        await producer.send(topic, 1, messages)
    finally:
        await producer.close()
    assert len(batches) > 1
    assert sum(batches) == 400
    records = await asyncio.to_thread(read_partition, kafka_bootstrap, topic, 1, 400)
    assert records == messages


@pytest.mark.parametrize("compression", ["none", "gzip", "snappy", "lz4", "zstd"])
async def test_producer_compression_is_transparent(
    kafka_bootstrap: str, compression: str, kafka_client: str
) -> None:
    topic = unique_topic(f"codec-{compression}")
    producer = await new_kafka_producer(
        _config(
            kafka_bootstrap, topic, compression=compression, partition_num=1, client=kafka_client
        )
    )
    messages = _messages(0, 300, size=500)
    try:
        await producer.send(topic, 0, messages)
    finally:
        await producer.close()
    records = await asyncio.to_thread(read_partition, kafka_bootstrap, topic, 0, 300)
    assert records == messages


def _fill_all(sizes: Sequence[int], batch_bytes: int) -> list[tuple[int, int, int]]:
    """(start, end, built size) of each batch KafkaProducer._fill makes over ``sizes``."""

    async def run() -> list[tuple[int, int, int]]:
        client = AIOKafkaProducer(bootstrap_servers="127.0.0.1:1", max_batch_size=batch_bytes)
        config = KafkaConfig(hosts=("127.0.0.1:1",), topic="t")
        producer = KafkaProducer(config, None, client, 10 << 20)  # type: ignore[arg-type]
        messages = [(b"", b"v" * n) for n in sizes]
        spans, start = [], 0
        while start < len(messages):
            batch, end = producer._fill(messages, start)
            spans.append((start, end, len(batch._build())))
            start = end
        return spans

    return asyncio.run(run())


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 6000), min_size=1, max_size=60),
    st.sampled_from([512, 4096, 16384]),
)
def test_batches_cover_messages_in_order_within_the_size(sizes: list[int], limit: int) -> None:
    spans = _fill_all(sizes, limit)
    assert spans[0][0] == 0
    assert spans[-1][1] == len(sizes)
    for (_, end, _), (start, _, _) in itertools.pairwise(spans):
        assert end == start
    for start, end, built in spans:
        assert end > start
        assert end - start == 1 or built <= limit


async def test_a_topic_recreated_with_fewer_partitions_fails_the_next_send(
    kafka_bootstrap: str, kafka_client: str
) -> None:
    """Partition 2 held acknowledged messages; once the metadata shows the topic with one
    partition, the producer refuses to go on, naming the lost partition."""
    from confluent_kafka.admin import AdminClient

    from tests.kafka_support.readback import create_topic, unique_topic
    from tisink.eventsink.kafka.errors import KafkaDataLossError

    topic = unique_topic("shrunk")
    create_topic(kafka_bootstrap, topic, 3)
    producer = await new_kafka_producer(_config(kafka_bootstrap, topic, client=kafka_client))
    try:
        await producer.send(topic, 2, [(None, b"a"), (None, b"b")])
        admin = AdminClient({"bootstrap.servers": kafka_bootstrap})
        for future in admin.delete_topics([topic], operation_timeout=10).values():
            future.result(timeout=15)
        create_topic(kafka_bootstrap, topic, 1)
        await producer.check_metadata()
        with pytest.raises(KafkaDataLossError, match=rf"topic {topic} partition 2: .* up to 1"):
            await producer.send(topic, 0, [(None, b"c")])
    finally:
        await producer.close()
