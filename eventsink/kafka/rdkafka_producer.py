"""RdKafkaProducer: the MQ sinks' Producer over confluent-kafka (librdkafka), ``kafka-client=
librdkafka``, beside the aiokafka one (``producer.py``) and with its guarantees.

``send`` hands a partition's records to librdkafka's queue (``rdkafka_enqueue.py``: delivery
reports for the first and last record only) and returns once the last is reported. Sends to
one partition queue their records one after the other, but a send may queue while the one
before waits for its reports (a caller pipelining sends keeps librdkafka busy); each takes in
its offsets after the one before, and fails if that one failed. The sends waiting for reports
serve them on the event loop's thread (librdkafka calls back from ``poll``): one ``poll(0)``
every ``_ACK_POLL_S`` while any waits; a poller thread would take the GIL back for every
report (confluent-kafka releases it around librdkafka's poll and retakes it per callback),
which costs the thread producing more than the reports themselves, and acks are seen within a
millisecond. librdkafka batches and retries by itself until ``message.timeout.ms`` (the sink's
``send_retry_timeout_s``); without idempotence one request is in flight per connection, so a
retry never reorders a partition (a batch whose ack was lost is written again: duplicates,
never gaps). So that partitions' requests still overlap, the sink has a librdkafka client (a
connection) for each of up to ``CLIENTS_MAX`` groups of partitions, partition ``p`` always in
client ``p % n`` (on two cores, raw ``produce`` with one request in flight: 223k msg/s through
one client, 266k through one a partition, 283k with librdkafka's default of many). With
``enable-idempotence`` the broker drops such copies and librdkafka keeps five requests in
flight.

The same checks as the aiokafka producer: a send's run of offsets (first to last) must hold
every record (exactly one offset each, or, for a longer run, each record read back in order),
the run goes through ``AcknowledgedOffsets`` (an offset that went back means the broker lost
acknowledged messages), a partition that disappeared after holding acknowledged messages is
data loss, and a failed delivery fails the send, naming topic, partition and cause.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from typing import Any

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka import Producer as ConfluentProducer

from tisink.codec.message import Record
from tisink.eventsink.kafka.config import KafkaConfig
from tisink.eventsink.kafka.errors import (
    KafkaDataLossError,
    KafkaMessageTooLargeError,
    KafkaSinkError,
)
from tisink.eventsink.kafka.offsets import AcknowledgedOffsets
from tisink.eventsink.kafka.rdkafka_enqueue import EndsReport, enqueue
from tisink.eventsink.kafka.readback import records_held
from tisink.eventsink.kafka.reader import DebugLogger, consumer_settings
from tisink.eventsink.kafka.send_gate import SendGate
from tisink.eventsink.kafka.topic_manager import KafkaTopicManager

log = logging.getLogger(__name__)

_ACK_POLL_S = 0.001
METADATA_CHECK_S = 10.0
"""How often sends look at the written topics' partitions (a topic recreated with fewer)."""
_LOST_PARTITION = {
    KafkaError.UNKNOWN_TOPIC_OR_PART,
    KafkaError._UNKNOWN_PARTITION,
    KafkaError._UNKNOWN_TOPIC,
}
_TOO_LARGE = {KafkaError.MSG_SIZE_TOO_LARGE, KafkaError.INVALID_MSG_SIZE}


CLIENTS_MAX = 4
"""librdkafka clients of one sink at most (each has its own threads, connections and queue)."""
QUEUE_KBYTES = 65536
"""librdkafka's queue of a sink, shared out among its clients."""


def producer_settings(
    config: KafkaConfig, max_message_bytes: int, clients: int = 1
) -> dict[str, Any]:
    """librdkafka settings under the sink's names (connection, TLS and SASL as verify's), for
    one of ``clients`` clients."""
    return {
        **consumer_settings(config),
        "client.id": config.client_id,
        "acks": "all" if config.required_acks == -1 else "1",
        "enable.idempotence": config.enable_idempotence,
        "max.in.flight.requests.per.connection": 5 if config.enable_idempotence else 1,
        "compression.type": config.compression,
        "batch.size": min(config.max_batch_bytes, max_message_bytes),
        "message.max.bytes": max(max_message_bytes, 1000),
        "linger.ms": 5,
        "message.timeout.ms": int(config.send_retry_timeout_s * 1000),
        "request.timeout.ms": int(config.request_timeout_s * 1000),
        "socket.connection.setup.timeout.ms": max(1000, int(config.dial_timeout_s * 1000)),
        "retry.backoff.ms": 100,
        "retry.backoff.max.ms": 2000,
        "queue.buffering.max.kbytes": QUEUE_KBYTES // clients,
        "logger": DebugLogger(log),
    }


class _Settling:
    """A send between queuing its records and taking in their offsets; the next send of its
    partition takes in its own after it (offsets must come in order) and fails if it failed."""

    __slots__ = ("done", "error")

    def __init__(self) -> None:
        self.done = asyncio.Event()
        self.error: BaseException | None = None


class RdKafkaProducer:
    """Delivers message batches to (topic, partition) through librdkafka and returns once the
    broker acknowledged them."""

    def __init__(
        self,
        config: KafkaConfig,
        topics: KafkaTopicManager,
        clients: Sequence[ConfluentProducer],
        max_message_bytes: int,
    ) -> None:
        self.config = config
        self.topics = topics
        self._clients = list(clients)
        """Partition ``p`` is produced by client ``p % len``: one client keeps its order."""
        self.max_message_bytes = max_message_bytes
        self.offsets = AcknowledgedOffsets()
        self._gate = SendGate()
        self._settling: dict[tuple[str, int], _Settling] = {}
        """The last send of each partition still waiting for its reports."""
        #: set when a written topic lost a partition holding acknowledged messages
        self._lost: KafkaDataLossError | None = None
        self._checked = time.monotonic()
        self._tick: asyncio.Task[None] | None = None
        """The next ``poll`` of the sends waiting for reports (one for all of them)."""

    async def _reports(self, delivery: EndsReport) -> None:
        """Serve delivery reports (every send's) until ``delivery`` has all of its own."""
        self._poll()
        while delivery.waiting:
            if self._tick is None:
                self._tick = asyncio.create_task(self._poll_soon())
            await asyncio.shield(self._tick)

    async def _poll_soon(self) -> None:
        try:
            await asyncio.sleep(_ACK_POLL_S)
            self._poll()
        finally:
            self._tick = None

    @property
    def client_count(self) -> int:
        """The librdkafka clients this producer sends through."""
        return len(self._clients)

    def _poll(self) -> None:
        for client in self._clients:
            client.poll(0)

    async def partition_count(self, topic: str) -> int:
        return await self.topics.partition_count(topic)

    def acknowledged_offsets(self) -> dict[tuple[str, int], int]:
        return self.offsets.ends()

    async def check_metadata(self) -> None:
        """Look at the written topics' partitions now: one that lost a partition holding
        acknowledged messages fails every later send (librdkafka has no metadata listener)."""
        self._checked = time.monotonic()
        for topic in sorted(self.offsets.topics()):
            count = await self.topics.describe_partitions(topic)
            try:
                if count is None:
                    raise KafkaDataLossError(
                        f"topic {topic} disappeared after the broker had acknowledged messages "
                        "to it; they are lost"
                    )
                self.offsets.check_partitions(topic, set(range(count)))
            except KafkaDataLossError as err:
                self._lost = self._lost or err

    async def send(self, topic: str, partition: int, records: Sequence[Record]) -> None:
        """Deliver ``(key, value)`` or ``(key, value, headers)`` records in order to one
        partition; return once all are acknowledged."""
        if not records:
            return
        self._gate.check(topic, partition, records, self.max_message_bytes)
        if time.monotonic() - self._checked > METADATA_CHECK_S:
            await self.check_metadata()
        if self._lost is not None:
            raise self._lost
        async with self._gate.lock(topic, partition, await self.partition_count(topic)):
            report = EndsReport(len(records))
            client = self._clients[partition % len(self._clients)]
            await enqueue(client, topic, partition, records, report)
            earlier = self._settling.get((topic, partition))
            mine = self._settling[(topic, partition)] = _Settling()
        try:
            await self._reports(report)
            if earlier is not None:  # its offsets come first
                await earlier.done.wait()
                if earlier.error is not None:
                    raise KafkaSinkError(
                        f"{len(records)} messages to topic {topic} partition {partition} "
                        f"followed a send that failed: {earlier.error}"
                    ) from earlier.error
            await self._acknowledged(topic, partition, records, report)
        except BaseException as err:
            mine.error = err
            raise
        finally:
            mine.done.set()
            if self._settling.get((topic, partition)) is mine:
                del self._settling[(topic, partition)]

    async def _acknowledged(
        self, topic: str, partition: int, records: Sequence[Record], report: EndsReport
    ) -> None:
        """Raise what a failed delivery means; else check the send's run of offsets and take
        it in."""
        error = report.error
        if error is not None:
            code = error.code()
            if code in _LOST_PARTITION and self.offsets.wrote(topic):
                raise KafkaDataLossError(
                    f"topic {topic} partition {partition} disappeared after the broker had "
                    f"acknowledged messages to it; they are lost ({error.str()})"
                )
            if code in _TOO_LARGE:
                raise KafkaMessageTooLargeError(
                    f"the broker refused a record over its size limit for topic {topic} "
                    f"partition {partition}: {error.str()}"
                )
            raise KafkaSinkError(
                f"producing {len(records)} messages to topic {topic} partition {partition} "
                f"failed: {error.str()}"
            )
        first, span = report.first, report.last - report.first + 1
        held = span  # a run as long as the send holds it all; a shorter one holds at most that
        if span > len(records):  # copies or another producer's records in between
            held = await self._read_back(topic, partition, report, records)
        if held < len(records):
            raise KafkaSinkError(
                f"topic {topic} partition {partition}: librdkafka acknowledged {len(records)} "
                f"messages as offsets {first} to {report.last}, which hold {held} of them; "
                "the rest were not written"
            )
        self.offsets.acknowledged(topic, partition, first, span)

    async def _read_back(
        self, topic: str, partition: int, report: EndsReport, records: Sequence[Record]
    ) -> int:
        log.info(
            "topic %s partition %s: %d messages took offsets %d to %d (a retried batch or "
            "another producer); reading them back",
            topic,
            partition,
            len(records),
            report.first,
            report.last,
        )
        return await asyncio.to_thread(
            records_held,
            self.config,
            topic,
            partition,
            report.first,
            report.last,
            records,
            DebugLogger(log),
        )

    async def close(self) -> None:
        """Deliver what is queued (within the retry timeout), then stop."""
        if self._gate.closed:
            return
        self._gate.closed = True
        try:
            timeout = self.config.send_retry_timeout_s
            await asyncio.gather(
                *(asyncio.to_thread(client.flush, timeout) for client in self._clients)
            )
        finally:
            await self.topics.close()


async def new_rdkafka_producer(
    config: KafkaConfig, topics: KafkaTopicManager, max_message_bytes: int
) -> RdKafkaProducer:
    """The librdkafka producer for a topic manager that already checked the default topic: a
    client for each of its partitions, up to ``CLIENTS_MAX``."""
    count = min(CLIENTS_MAX, max(1, await topics.partition_count(config.topic)))
    settings = producer_settings(config, max_message_bytes, count)
    try:
        clients = [ConfluentProducer(settings) for _ in range(count)]
    except KafkaException as err:
        raise KafkaSinkError(f"bad librdkafka producer settings: {err}") from err
    return RdKafkaProducer(config, topics, clients, max_message_bytes)
