"""The Kafka sink: TableSink -> MQ DML sink -> broker, against raw aiokafka batch sends of the
same bytes.

The sink run covers everything a row goes through: the table sink's buffer and progress
tracker, Simple JSON encoding, index-value routing over 3 partitions, the MQ sink's batches per
partition and the broker's acks, timed from the first rows handed over until the checkpoint
reaches the last row. The baseline sends the already-encoded values of the same rows to the
same partitions with aiokafka's batch API, one batch in flight per partition (connecting is not
timed on either side). Runs alternate, each on a topic of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import time
import uuid
from collections.abc import Iterator
from typing import Any

from aiokafka import AIOKafkaProducer

from tisink.bench.results import BenchResult
from tisink.bench.rows import BASE_MS, Txn
from tisink.codec import new_encoder
from tisink.core.clock import FixedClock
from tisink.eventsink.capabilities import BackPressured, stats_of
from tisink.eventsink.kafka import KafkaConfig, KafkaTopicManager
from tisink.eventsink.router import EventRouter
from tisink.model import ResolvedTs
from tisink.sink import ChangefeedConfig, SinkFactory

PARTITIONS = 3
FLUSH_ROWS = 4096
"""Rows per resolved ts, the player's default cadence."""
CONFIG = """
[sink]
protocol = "simple"
send-bootstrap-interval-in-sec = 0
[[sink.dispatchers]]
matcher = ["*.*"]
partition = "index-value"
"""


@contextlib.contextmanager
def broker_address(bootstrap: str | None) -> Iterator[str]:
    """``bootstrap``, or an embedded broker's for the duration."""
    if bootstrap:
        yield bootstrap
        return
    from tisink.run.broker import start_broker

    with start_broker() as broker:
        yield broker.bootstrap


async def raw_aiokafka(bootstrap: str, topic: str, parts: list[list[bytes]]) -> float:
    """Seconds for aiokafka's batch API to deliver ``parts[p]`` to partition ``p`` of
    ``topic``, one batch in flight per partition (connecting and closing not counted)."""
    client = AIOKafkaProducer(
        bootstrap_servers=bootstrap, acks="all", max_batch_size=1 << 20, linger_ms=0
    )
    await client.start()

    async def partition_loop(partition: int, values: list[bytes]) -> None:
        index = 0
        while index < len(values):
            batch = client.create_batch()
            while index < len(values):
                if batch.append(key=b"", value=values[index], timestamp=None) is None:
                    break
                index += 1
            batch.close()
            await (await client.send_batch(batch, topic, partition=partition))

    try:
        started = time.perf_counter()
        await asyncio.gather(*(partition_loop(p, v) for p, v in enumerate(parts)))
        return time.perf_counter() - started
    finally:
        await client.stop()


def encoded_parts(txns: list[Txn], partitions: int = PARTITIONS) -> list[list[bytes]]:
    """The values the sink writes for ``txns``, by partition, routed as the sink routes them."""
    config = ChangefeedConfig.from_toml(CONFIG)
    encoder = new_encoder(config.encoder, FixedClock(BASE_MS))
    router = EventRouter("bench", config.dispatch_rules)
    parts: list[list[bytes]] = [[] for _ in range(partitions)]
    for txn in txns:
        targets = router.partitions_for_rows(txn, partitions)
        for target, record in zip(targets, encoder.encode_rows(txn).records, strict=True):
            parts[target].append(record[1])
    return parts


async def create_topic(bootstrap: str, topic: str, partitions: int = PARTITIONS) -> None:
    config = KafkaConfig.from_sink_params(bootstrap, topic, {"partition-num": str(partitions)})
    manager = await KafkaTopicManager.connect(config)
    try:
        await manager.partition_count(topic)
    finally:
        await manager.close()


async def table_sink_run(
    bootstrap: str, topic: str, txns: list[Txn]
) -> tuple[float, dict[str, Any]]:
    """Seconds from the first rows handed to a TableSink until its checkpoint reaches the last,
    and the run's latency percentiles (ms) and sink stats."""
    uri = f"kafka://{bootstrap}/{topic}?protocol=simple&partition-num={PARTITIONS}"
    factory = SinkFactory(uri, ChangefeedConfig.from_toml(CONFIG), clock=FixedClock(BASE_MS))
    event_sink = await factory.create_event_sink()
    table_sink = factory.create_table_sink(txns[0][0].table.table_id, event_sink)
    last = txns[-1][-1].commit_ts
    try:
        started = time.perf_counter()
        pending = 0
        for txn in txns:
            table_sink.append_row_changed_events(txn)
            pending += len(txn)
            if pending >= FLUSH_ROWS or txn is txns[-1]:
                table_sink.update_resolved_ts(ResolvedTs.normal(txn[-1].commit_ts))
                pending = 0
                if isinstance(event_sink, BackPressured):
                    await event_sink.wait_for_capacity()
        while table_sink.get_checkpoint_ts().resolved_mark < last:
            await asyncio.sleep(0.0005)
        seconds = time.perf_counter() - started
    finally:
        await table_sink.close()
        await event_sink.close()
    measured: dict[str, Any] = {
        "latency": factory.ack_latency.report().latency_ms(),
        "bytes": stats_of([event_sink]).bytes,
    }
    return seconds, measured


def kafka_group(bootstrap: str | None, txns: list[Txn], repeat: int) -> list[BenchResult]:
    """The sink against raw sends, ``repeat`` runs of each, medians compared."""
    rows = sum(map(len, txns))
    parts = encoded_parts(txns)
    run = uuid.uuid4().hex[:8]
    ours: list[float] = []
    raw: list[float] = []
    p99: list[float] = []
    size = 0
    with broker_address(bootstrap) as address:
        for attempt in range(max(1, repeat)):
            topics = (f"bench-raw-{run}-{attempt}", f"bench-sink-{run}-{attempt}")
            for topic in topics:
                asyncio.run(create_topic(address, topic))
            raw.append(asyncio.run(raw_aiokafka(address, topics[0], parts)))
            seconds, measured = asyncio.run(table_sink_run(address, topics[1], txns))
            ours.append(seconds)
            p99.append(measured["latency"]["p99"])
            size = measured["bytes"]
    return [
        BenchResult(
            "Kafka sink: 10-column rows, 3 partitions",
            "TableSink -> MQ sink -> broker",
            rows / statistics.median(ours),
            "raw aiokafka batch sends",
            rows / statistics.median(raw),
            bytes_per_row=round(size / rows, 1),
            p99_ms=statistics.median(p99),
            note=f"{rows} rows; broker {'at ' + bootstrap if bootstrap else 'embedded (Tansu)'}",
        )
    ]
