"""Faults: connections cut mid-stream, an unreachable broker, fatal produce errors."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import AsyncIterator

import pytest

from tests.kafka_support.proxy import FaultProxy
from tests.kafka_support.readback import create_topic, read_partition, unique_topic
from tisink.eventsink.kafka import (
    KafkaConfig,
    KafkaMessageTooLargeError,
    KafkaSinkError,
    KafkaUnreachableError,
    new_kafka_producer,
)
from tisink.run.broker import free_port, start_broker


def _config(bootstrap: str, topic: str, **changes: object) -> KafkaConfig:
    return dataclasses.replace(KafkaConfig.from_sink_params(bootstrap, topic, {}), **changes)


#: (max cuts, outage seconds): short outages are absorbed by aiokafka's own retries within
#: the request timeout (1 s); the long one outlives it, so KafkaProducer's retry takes over
OUTAGES = {"short-outages": (6, 0.3), "long-outage": (2, 2.5)}


@pytest.fixture(params=sorted(OUTAGES))
async def proxied_broker(request: pytest.FixtureRequest) -> AsyncIterator[tuple[FaultProxy, str]]:
    """A dedicated embedded broker that advertises the proxy's address, so every client
    connection, metadata-driven ones included, goes through the proxy."""
    max_cuts, outage = OUTAGES[request.param]
    proxy_port = free_port()
    with start_broker(advertised=f"127.0.0.1:{proxy_port}") as broker:
        proxy = FaultProxy(
            proxy_port,
            broker.port,
            cut_every_bytes=150_000,
            max_cuts=max_cuts,
            outage_seconds=outage,
        )
        await proxy.start()
        try:
            yield proxy, f"127.0.0.1:{proxy_port}"
        finally:
            await proxy.close()


@pytest.mark.timeout(180)
async def test_cut_connections_lose_nothing_and_keep_order(
    proxied_broker: tuple[FaultProxy, str], caplog: pytest.LogCaptureFixture, kafka_client: str
) -> None:
    proxy, bootstrap = proxied_broker
    topic = unique_topic("faults")
    config = _config(
        bootstrap, topic, request_timeout_s=1.0, send_retry_timeout_s=60.0, client=kafka_client
    )
    producer = await new_kafka_producer(config)
    sent = {
        p: [(b"", f"{p}:{i:06d}:".encode().ljust(200, b".")) for i in range(3000)] for p in range(3)
    }

    async def stream(partition: int) -> None:
        for start in range(0, 3000, 100):
            await producer.send(topic, partition, sent[partition][start : start + 100])

    try:
        await asyncio.wait_for(asyncio.gather(*(stream(p) for p in range(3))), timeout=120)
    finally:
        await producer.close()
    assert proxy.cuts == proxy.max_cuts  # every cut happened while data was flowing
    if proxy.outage_seconds > config.request_timeout_s and kafka_client == "aiokafka":
        # batches expired inside aiokafka (librdkafka retries inside until message.timeout.ms)
        assert any("retrying" in r.getMessage() for r in caplog.records)
    for p in range(3):
        records = await asyncio.to_thread(read_partition, bootstrap, topic, p, 3000)
        values = [value for _, value in records]
        first_seen = list(dict.fromkeys(values))
        assert first_seen == [value for _, value in sent[p]]  # none lost, order kept


async def test_unreachable_broker_fails_fast_naming_the_servers(kafka_client: str) -> None:
    port = free_port()
    started = time.monotonic()
    with pytest.raises(KafkaUnreachableError, match=f"127.0.0.1:{port}"):
        await new_kafka_producer(
            _config(f"127.0.0.1:{port}", "t", dial_timeout_s=10.0, client=kafka_client)
        )
    assert time.monotonic() - started < 15


async def test_silent_broker_fails_within_the_dial_timeout() -> None:
    """A port that accepts connections but never answers: only the timeout can end it."""

    async def swallow(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()
        writer.close()

    server = await asyncio.start_server(swallow, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    started = time.monotonic()
    try:
        said = rf"127.0.0.1:{port}: tried for 1\.\ds \(the sink URI's dial-timeout\); no broker"
        with pytest.raises(KafkaUnreachableError, match=said):
            await new_kafka_producer(_config(f"127.0.0.1:{port}", "t", dial_timeout_s=1.5))
    finally:
        server.close()
    assert time.monotonic() - started < 6


async def test_message_over_the_topic_limit_is_fatal_and_named(
    kafka_bootstrap: str, kafka_client: str
) -> None:
    topic = unique_topic("toolarge")
    await asyncio.to_thread(create_topic, kafka_bootstrap, topic, 2, {"max.message.bytes": "2000"})
    producer = await new_kafka_producer(_config(kafka_bootstrap, topic, client=kafka_client))
    assert producer.max_message_bytes == 2000 - 128
    fits = (b"", b"a" * (producer.max_message_bytes - 36))
    too_big = (b"", b"b" * (producer.max_message_bytes - 35))
    try:
        await producer.send(topic, 1, [fits])
        with pytest.raises(
            KafkaMessageTooLargeError, match=rf"record 2 of 2 .*topic {topic} partition 1"
        ):
            await producer.send(topic, 1, [fits, too_big])
    finally:
        await producer.close()
    records = await asyncio.to_thread(read_partition, kafka_bootstrap, topic, 1, 1)
    assert records == [fits]  # the refused batch wrote nothing


async def test_missing_partition_is_fatal_and_named(
    kafka_bootstrap: str, kafka_client: str
) -> None:
    topic = unique_topic("nopart")
    producer = await new_kafka_producer(
        _config(kafka_bootstrap, topic, partition_num=2, client=kafka_client)
    )
    try:
        with pytest.raises(KafkaSinkError, match=rf"topic {topic} .*partition 7"):
            await producer.send(topic, 7, [(b"", b"x")])
    finally:
        await producer.close()
    with pytest.raises(KafkaSinkError, match="closed"):
        await producer.send(topic, 0, [(b"", b"x")])
