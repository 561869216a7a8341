"""The Kafka sink: TableSink -> MQ DML sink -> broker, against three anchors on the same broker.

The sink run covers everything a row goes through: the table sink's buffer and progress
tracker, Simple JSON encoding, index-value routing over 3 partitions, the MQ sink's batches per
partition and the broker's acks, timed from the first rows handed over until the checkpoint
reaches the last row. The anchors, each a line of the group with the sink's ratio to it:

- raw aiokafka: the already-encoded values of the same rows to the same partitions with
  aiokafka's batch API, one batch in flight per partition;
- raw confluent-kafka: the same values and partitions with ``produce`` per record (acks all,
  librdkafka's defaults: 5 ms linger, 1,000,000-byte batches, no delivery callbacks), then
  ``flush``;
- Kafka's own ``ProducerPerformance`` (``producer_perf``): as many values of their mean size,
  in a JVM of its own, its steady-state figure after a warm-up; its JVM start-up is in the note.

Connecting is timed on no side. Runs alternate, each on a topic of its own. The broker is an
embedded Apache Kafka (``broker="apache"``, the default: a real broker's costs, and the only
one the Java tool runs against) or Tansu (``broker="tansu"``: starts at once and keeps
everything in memory; it has no idempotent producer and counts end offsets by batch, and the
tool is skipped), unless ``bootstrap`` names one running (``broker`` then says which kind it
is). Without Java or the jars, the default runs on Tansu and says so.
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

from tisink.bench.producer_perf import (
    NAME as TOOL_NAME,
)
from tisink.bench.producer_perf import (
    PerfRun,
    ProducerPerfError,
    ProducerPerfUnavailable,
    producer_performance,
    tool_runtime,
)
from tisink.bench.results import BenchResult
from tisink.bench.rows import BASE_MS, Txn
from tisink.codec import new_encoder
from tisink.core.clock import FixedClock
from tisink.eventsink.capabilities import BackPressured, stats_of
from tisink.eventsink.kafka import KafkaConfig, KafkaTopicManager
from tisink.eventsink.router import EventRouter
from tisink.model import ResolvedTs
from tisink.run.embedded import DEFAULT_BROKER, BrokerKind, start_embedded_broker
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


GROUP = "Kafka sink: 10-column rows, 3 partitions"
CASE = "TableSink -> MQ sink -> broker"
RAW_AIOKAFKA = "raw aiokafka batch sends"
RAW_CONFLUENT = "raw confluent-kafka produce"


@contextlib.contextmanager
def broker_address(bootstrap: str | None, kind: BrokerKind = "tansu") -> Iterator[str]:
    """``bootstrap``, or an embedded broker's of ``kind`` for the duration."""
    if bootstrap:
        yield bootstrap
        return
    with start_embedded_broker(kind) as broker:
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


def raw_confluent(bootstrap: str, topic: str, parts: list[list[bytes]]) -> float:
    """Seconds for confluent-kafka to deliver ``parts[p]`` to partition ``p`` of ``topic``,
    ``produce`` per record then ``flush`` (the client connected and holding the topic's
    metadata before the clock starts; closing not counted)."""
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5})
    producer.list_topics(topic, timeout=30)
    produce, poll = producer.produce, producer.poll
    started = time.perf_counter()
    for partition, values in enumerate(parts):
        for value in values:
            while True:
                try:
                    produce(topic, value, None, partition)
                    break
                except BufferError:
                    poll(0.005)
    if producer.flush(120) != 0:
        raise RuntimeError("raw confluent-kafka: records left undelivered")
    return time.perf_counter() - started


def encoded_parts(txns: list[Txn], partitions: int = PARTITIONS) -> list[list[bytes]]:
    """The values the sink writes for ``txns``, by partition, routed as the sink routes them."""
    config = ChangefeedConfig.from_toml(CONFIG)
    encoder = new_encoder(config.encoder, FixedClock(BASE_MS))
    router = EventRouter("bench", config.dispatch_rules)
    parts: list[list[bytes]] = [[] for _ in range(partitions)]
    for txn in txns:
        targets = router.partitions_for_rows(txn, partitions)
        for target, record in zip(targets, encoder.encode_rows(txn).records, strict=True):
            parts[target].append(record[1] or b"")  # Simple JSON writes no tombstone
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


def tool_skipped(bootstrap: str | None, broker: BrokerKind) -> str | None:
    """Why Kafka's producer tool cannot run in this group, or None."""
    if broker != "apache":
        where = f"the Tansu broker at {bootstrap}" if bootstrap else "the embedded Tansu broker"
        return f"skipped: runs against Apache Kafka only, and this run uses {where}"
    try:
        tool_runtime()
    except ProducerPerfUnavailable as exc:
        return f"skipped: {exc}"
    return None


def kafka_group(
    bootstrap: str | None, txns: list[Txn], repeat: int, broker: BrokerKind = DEFAULT_BROKER
) -> list[BenchResult]:
    """The sink against each anchor, ``repeat`` runs of each, medians compared; the broker is
    ``bootstrap`` (of kind ``broker``) or an embedded one of kind ``broker``."""
    rows = sum(map(len, txns))
    parts = encoded_parts(txns)
    size = sum(len(value) for part in parts for value in part)
    skipped = tool_skipped(bootstrap, broker)
    if skipped and broker == "apache" and not bootstrap:
        broker = "tansu"  # no Java or no jars: the embedded Apache Kafka cannot start either
    run = uuid.uuid4().hex[:8]
    ours: list[float] = []
    aio: list[float] = []
    confluent: list[float] = []
    tool: list[PerfRun] = []
    tool_error = ""
    p99: list[float] = []
    written = 0
    with broker_address(bootstrap, broker) as address:
        for attempt in range(max(1, repeat)):
            topics = [f"bench-{name}-{run}-{attempt}" for name in ("raw", "rdk", "tool", "sink")]
            for topic in topics:
                asyncio.run(create_topic(address, topic))
            aio.append(asyncio.run(raw_aiokafka(address, topics[0], parts)))
            confluent.append(raw_confluent(address, topics[1], parts))
            if not (skipped or tool_error):
                try:
                    tool.append(
                        producer_performance(address, topics[2], rows, max(1, round(size / rows)))
                    )
                except (ProducerPerfError, ProducerPerfUnavailable) as exc:
                    tool_error = str(exc)
            seconds, measured = asyncio.run(table_sink_run(address, topics[3], txns))
            ours.append(seconds)
            p99.append(measured["latency"]["p99"])
            written = measured["bytes"]
    where = f"at {bootstrap}" if bootstrap else "embedded"
    note = f"{rows} rows; broker {where} ({'Apache Kafka' if broker == 'apache' else 'Tansu'})"
    ours_rate = rows / statistics.median(ours)
    common: dict[str, Any] = {
        "bytes_per_row": round(written / rows, 1),
        "p99_ms": statistics.median(p99),
    }
    results = [
        BenchResult(GROUP, CASE, ours_rate, name, rows / statistics.median(times), **common)
        for name, times in ((RAW_AIOKAFKA, aio), (RAW_CONFLUENT, confluent))
    ]
    results[0].note = note
    anchor = BenchResult(GROUP, CASE, ours_rate, TOOL_NAME, **common)
    if skipped:
        anchor.note = skipped
    elif tool_error:
        anchor.rows_per_s, anchor.error = 0.0, tool_error
    else:
        anchor.baseline_rows_per_s = statistics.median(r.measured.records_per_s for r in tool)
        anchor.note = tool_note(tool, round(size / rows))
    return [*results, anchor]


def tool_note(runs: list[PerfRun], record_size: int) -> str:
    """The tool's own figures beside its rate (medians of the runs)."""

    def median(field: str) -> float:
        return statistics.median(getattr(r.measured, field) for r in runs)

    whole = statistics.median(r.whole.records_per_s for r in runs)
    startup = statistics.median(r.startup_s for r in runs)
    return (
        f"{record_size}-byte records after {runs[0].whole.records - runs[0].measured.records:,} "
        f"to warm up; its p50/p99/p99.9 {median('p50_ms'):.0f}/{median('p99_ms'):.0f}/"
        f"{median('p999_ms'):.0f} ms, {median('mb_per_s'):.2f} MB/s; whole run {whole:,.0f}/s; "
        f"JVM start-up and exit {startup:.1f} s, not counted"
    )
