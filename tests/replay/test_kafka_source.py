"""Where a Kafka source's ranges end: the partition's end when the range was planned (probed,
since the embedded broker's high watermark is only its last batch's base offset + 1), so a
topic written while it is read is not chased; a capture that stops short of --end-offset says
so; a capture whose connection is lost says that, not that a partition was left unread."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from confluent_kafka import Producer

from tests.kafka_support.proxy import FaultProxy
from tests.kafka_support.readback import create_topic, unique_topic
from tisink.eventsink.kafka import KafkaConfig
from tisink.eventsink.reading import StreamReadError
from tisink.replay.capture import CaptureStats, capture_topic
from tisink.replay.kafka_source import Bound, KafkaTopicSource, PartitionRange
from tisink.replay.records import read_partition_file
from tisink.run.broker import free_port, start_broker


def _produce(bootstrap: str, topic: str, batches: int, per_batch: int, size: int = 8) -> None:
    """``batches`` record batches of ``per_batch`` records into partition 0 (a flush each)."""
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20})
    for batch in range(batches):
        for i in range(per_batch):
            producer.produce(topic, value=b"%08d" % (batch * per_batch + i) + b"v" * size)
        assert producer.flush(30) == 0


def _source(bootstrap: str, topic: str, timeout_s: float = 10.0) -> KafkaTopicSource:
    return KafkaTopicSource(KafkaConfig.from_sink_params(bootstrap, topic, {}), timeout_s)


def _offsets(folder: Path, topic: str) -> list[int]:
    path = folder / topic / "partition-0.jsonl"
    return [r.offset for chunk in read_partition_file(path) for r in chunk]


@pytest.mark.parametrize("broker", ["kafka_bootstrap", "apache_kafka_bootstrap"])
def test_a_range_ends_where_the_partition_ended_when_planned(
    request: pytest.FixtureRequest, broker: str
) -> None:
    """On Tansu the watermark falls in the last batch (its base offset + 1): only the probe
    finds 300; on Apache Kafka it is the end, and the range is what any consumer sees."""
    kafka_bootstrap: str = request.getfixturevalue(broker)
    topic = unique_topic("planned-end")
    create_topic(kafka_bootstrap, topic, 1)
    _produce(kafka_bootstrap, topic, batches=3, per_batch=100)
    source = _source(kafka_bootstrap, topic)
    try:
        (span,) = source.plan()
        _produce(kafka_bootstrap, topic, batches=1, per_batch=50)  # written while it is read
        read = [r.offset for _, records in source.read([span]) for r in records]
    finally:
        source.close()
    assert read == list(range(300))
    assert (span.high, span.exact) == (300, True)  # not the watermark of the last batch


def test_a_capture_short_of_its_end_offset_says_where_it_stopped(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    topic = unique_topic("short-end")
    create_topic(kafka_bootstrap, topic, 1)
    _produce(kafka_bootstrap, topic, batches=2, per_batch=150)
    source = _source(kafka_bootstrap, topic)
    try:
        stats = capture_topic(source, tmp_path, end=Bound(offset=5000))
    finally:
        source.close()
    assert stats.records == 300 and stats.short == {0: 300}
    source = _source(kafka_bootstrap, topic)
    try:
        within = capture_topic(source, tmp_path / "within", end=Bound(offset=120))
    finally:
        source.close()
    assert within.records == 120 and within.short == {}


@dataclass
class Proxied:
    """A broker of its own reached through a proxy that can cut every connection."""

    proxy: FaultProxy
    bootstrap: str
    loop: asyncio.AbstractEventLoop

    def cut_at(self, records: int) -> Callable[[CaptureStats], None]:
        """An on_progress that cuts every connection (and refuses new ones) once ``records``
        were captured."""

        def on_progress(stats: CaptureStats) -> None:
            if stats.records >= records and not self.proxy.cuts:
                asyncio.run_coroutine_threadsafe(self.cut(), self.loop).result(10)

        return on_progress

    async def cut(self) -> None:
        self.proxy.cut()


@pytest.fixture
def proxied() -> Iterator[Proxied]:
    proxy_port = free_port()
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    with start_broker(advertised=f"127.0.0.1:{proxy_port}") as broker:
        proxy = FaultProxy(proxy_port, broker.port, outage_seconds=120)
        asyncio.run_coroutine_threadsafe(proxy.start(), loop).result(10)
        try:
            yield Proxied(proxy, f"127.0.0.1:{proxy_port}", loop)
        finally:
            asyncio.run_coroutine_threadsafe(proxy.close(), loop).result(10)
            loop.call_soon_threadsafe(loop.stop)
            thread.join(10)


def test_a_capture_that_read_everything_ends_though_the_connection_is_then_lost(
    proxied: Proxied, tmp_path: Path
) -> None:
    bootstrap = proxied.bootstrap
    topic = unique_topic("all-then-cut")
    create_topic(bootstrap, topic, 1)
    _produce(bootstrap, topic, batches=2, per_batch=200)
    source = _source(bootstrap, topic, timeout_s=3)
    try:
        stats = capture_topic(source, tmp_path, on_progress=proxied.cut_at(400))
    finally:
        source.close()
    assert proxied.proxy.cuts == 1
    assert stats.records == 400 and _offsets(tmp_path, topic) == list(range(400))


class CutAfterPlanning(KafkaTopicSource):
    """A source whose connections are all cut (and refused from then on) once its ranges
    are planned: nothing more can arrive."""

    def __init__(self, proxied: Proxied, topic: str) -> None:
        super().__init__(KafkaConfig.from_sink_params(proxied.bootstrap, topic, {}), 3)
        self.proxied = proxied

    def plan(
        self,
        partitions: Sequence[int] | None = None,
        start: Bound | None = None,
        end: Bound | None = None,
    ) -> list[PartitionRange]:
        ranges = super().plan(partitions, start, end)
        asyncio.run_coroutine_threadsafe(self.proxied.cut(), self.proxied.loop).result(10)
        return ranges


def test_a_capture_whose_connection_is_lost_says_so_and_where_it_stopped(
    proxied: Proxied, tmp_path: Path
) -> None:
    topic = unique_topic("cut-midway")
    create_topic(proxied.bootstrap, topic, 1)
    _produce(proxied.bootstrap, topic, batches=3, per_batch=1000)
    source = _source(proxied.bootstrap, topic)
    try:
        capture_topic(source, tmp_path, end=Bound(offset=1000))
    finally:
        source.close()
    cut = CutAfterPlanning(proxied, topic)
    try:
        with pytest.raises(StreamReadError) as failed:
            capture_topic(cut, tmp_path)  # resumes at 1000
    finally:
        cut.close()
    assert _offsets(tmp_path, topic) == list(range(1000))
    message = str(failed.value)
    assert f"topic {topic}: the connection was lost after 0 records" in message, message
    assert "partitions stopped: 0 at offset 1000 of 3000" in message, message
    assert "not read to their end" not in message
