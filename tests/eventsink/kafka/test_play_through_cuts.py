"""A 100k-row play whose Kafka connections are cut again and again (a TCP proxy between the
producer and the broker): every row arrives, in order per partition, and verify passes."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import orjson
import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, TopicPartition

from tests.kafka_support.proxy import FaultProxy
from tisink.play.run import PlaySpec, run_play
from tisink.run.broker import free_port, start_broker

ROWS = 100_000
CUTS = 5


def _read_to_end(bootstrap: str, topic: str, partition: int) -> list[bytes]:
    """Every value of one partition, read with confluent-kafka up to its end."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"cuts-{partition}",
            "enable.partition.eof": True,
            "enable.auto.commit": False,
        }
    )
    try:
        consumer.assign([TopicPartition(topic, partition, OFFSET_BEGINNING)])
        values: list[bytes] = []
        while True:
            message = consumer.poll(10)
            assert message is not None, f"{topic}[{partition}] stalled after {len(values)}"
            error = message.error()
            if error is not None and error.code() == KafkaError._PARTITION_EOF:
                return values
            assert error is None, error
            values.append(message.value())
    finally:
        consumer.close()


@pytest.fixture
def cut_proxy() -> Iterator[tuple[FaultProxy, str]]:
    """A dedicated broker advertising a proxy that cuts every connection each ~10 MB."""
    proxy_port = free_port()
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    with start_broker(advertised=f"127.0.0.1:{proxy_port}") as broker:
        proxy = FaultProxy(
            proxy_port, broker.port, cut_every_bytes=10_000_000, max_cuts=CUTS, outage_seconds=0.3
        )
        asyncio.run_coroutine_threadsafe(proxy.start(), loop).result(10)
        try:
            yield proxy, f"127.0.0.1:{proxy_port}"
        finally:
            asyncio.run_coroutine_threadsafe(proxy.close(), loop).result(10)
            loop.call_soon_threadsafe(loop.stop)
            thread.join(10)


@pytest.mark.timeout(300)
def test_a_play_through_cut_connections_loses_nothing(
    cut_proxy: tuple[FaultProxy, str], kafka_client: str
) -> None:
    proxy, bootstrap = cut_proxy
    uri = f"kafka://{bootstrap}/cuts?protocol=simple&partition-num=3&kafka-client={kafka_client}"
    summary = run_play(
        PlaySpec(workload="demo", rows=ROWS, sink_uri=uri, engine="inline", clock="feed")
    )
    assert proxy.cuts == CUTS  # every cut happened while the play was writing
    assert summary.verified is True  # per-handle order, watermarks, schemas: verify's rules
    distinct: set[bytes] = set()
    for partition in range(3):
        values = _read_to_end(bootstrap, "cuts", partition)
        rows = [v for v in values if orjson.loads(v)["type"] in ("INSERT", "UPDATE", "DELETE")]
        first_seen = list(dict.fromkeys(rows))
        # a batch retried after its ack was lost comes again right after itself: dropping the
        # repeats must leave the partition's rows in one increasing commitTs order per table
        last: dict[str, int] = {}
        for value in first_seen:
            message = orjson.loads(value)
            table = f"{message['database']}.{message['table']}"
            assert message["commitTs"] >= last.get(table, 0), (partition, table)
            last[table] = message["commitTs"]
        distinct.update(first_seen)
    assert len(distinct) == summary.messages["DML"] >= ROWS
