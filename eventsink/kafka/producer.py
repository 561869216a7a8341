"""KafkaProducer: the MQ sinks' Producer over aiokafka's record-batch API.

Each ``send`` fills record batches with ``create_batch()`` and submits them with
``send_batch()``: one future per batch, never one per message. Per partition one batch is in
flight at a time, and a failed batch is retried before anything after it is submitted, so the
order within a partition survives retries. Without idempotence (the default; the embedded Tansu
answers aiokafka's InitProducerId with an error) a batch whose ack was lost is written again
(duplicates, never gaps or reordering).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from itertools import islice
from typing import TYPE_CHECKING

from aiokafka import AIOKafkaProducer
from aiokafka.cluster import ClusterMetadata
from aiokafka.errors import KafkaError, KafkaTimeoutError, UnknownTopicOrPartitionError
from aiokafka.producer.message_accumulator import BatchBuilder

from tisink.codec.message import Record
from tisink.eventsink.kafka.config import KafkaConfig
from tisink.eventsink.kafka.errors import (
    KafkaConfigError,
    KafkaDataLossError,
    KafkaSinkError,
)
from tisink.eventsink.kafka.offsets import AcknowledgedOffsets
from tisink.eventsink.kafka.send_gate import SendGate
from tisink.eventsink.kafka.topic_manager import KafkaTopicManager, dial

if TYPE_CHECKING:
    from tisink.eventsink.kafka.rdkafka_producer import RdKafkaProducer

log = logging.getLogger(__name__)

_FIRST_BACKOFF_S = 0.1
_MAX_BACKOFF_S = 2.0
_NO_HEADERS: list[tuple[str, bytes]] = []  # never mutated: aiokafka only reads it


class KafkaProducer:
    """Delivers message batches to (topic, partition) and returns once the broker acked them."""

    def __init__(
        self,
        config: KafkaConfig,
        topics: KafkaTopicManager,
        client: AIOKafkaProducer,
        max_message_bytes: int,
    ) -> None:
        self.config = config
        self.topics = topics
        self._client = client
        #: ``max-message-bytes`` after lowering to the cluster's limit; encoders must use it
        self.max_message_bytes = max_message_bytes
        self._gate = SendGate()
        #: the end of what the broker acknowledged, per partition (offsets only move forward)
        self.offsets = AcknowledgedOffsets()
        #: set when a metadata update lost a partition holding acknowledged messages
        self._lost: KafkaDataLossError | None = None
        client.client.cluster.add_listener(self._on_metadata)

    def _on_metadata(self, cluster: ClusterMetadata) -> None:
        """aiokafka's metadata listener: a written partition missing from a topic the cluster
        still lists means the broker lost it (a missing topic fails the next send)."""
        for topic in self.offsets.topics():
            partitions = cluster.partitions_for_topic(topic)
            if partitions is not None and self._lost is None:
                try:
                    self.offsets.check_partitions(topic, set(partitions))
                except KafkaDataLossError as err:
                    self._lost = err

    async def check_metadata(self) -> None:
        """Refresh the cluster's metadata now (aiokafka does every few minutes): a written
        topic that lost a partition holding acknowledged messages fails every later send."""
        await self._client.client.force_metadata_update()

    async def partition_count(self, topic: str) -> int:
        return await self.topics.partition_count(topic)

    def acknowledged_offsets(self) -> dict[tuple[str, int], int]:
        """(topic, partition) -> last acknowledged offset + 1, for verify to compare."""
        return self.offsets.ends()

    async def send(self, topic: str, partition: int, records: Sequence[Record]) -> None:
        """Deliver ``(key, value)`` or ``(key, value, headers)`` records in order to one
        partition; return once all are acknowledged."""
        if not records:
            return
        self._gate.check(topic, partition, records, self.max_message_bytes)
        if self._lost is not None:
            raise self._lost
        async with self._gate.lock(topic, partition, await self.partition_count(topic)):
            start = 0
            while start < len(records):
                start = await self._deliver(topic, partition, records, start)

    async def close(self) -> None:
        """Flush what is queued, then drop the connections."""
        if self._gate.closed:
            return
        self._gate.closed = True
        try:
            await self._client.stop()
        finally:
            await self.topics.close()

    def _fill(self, records: Sequence[Record], start: int) -> tuple[BatchBuilder, int]:
        """A closed batch holding ``records[start:end]``; the first record always fits."""
        batch = self._client.create_batch()
        append = batch.append
        end = start
        for record in islice(records, start, None):
            if len(record) == 2:
                key, value = record
                headers = _NO_HEADERS
            else:  # a third item is the record's Kafka headers; aiokafka's builder takes a list
                key, value, more = record
                headers = list(more)
            if append(timestamp=None, key=key, value=value, headers=headers) is None:
                break
            end += 1
        batch.close()
        return batch, end

    async def _deliver(
        self, topic: str, partition: int, records: Sequence[Record], start: int
    ) -> int:
        """Send one batch starting at ``start`` until acked; return where the next one starts."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.config.send_retry_timeout_s
        backoff = _FIRST_BACKOFF_S
        attempt = 1
        while True:
            batch, end = self._fill(records, start)
            try:
                ack = await self._client.send_batch(batch, topic, partition=partition)
                metadata = await ack
                self.offsets.acknowledged(topic, partition, metadata.offset, end - start)
                if self._lost is not None:
                    raise self._lost
                return end
            except KafkaError as exc:
                if isinstance(exc, UnknownTopicOrPartitionError) and self.offsets.wrote(topic):
                    raise KafkaDataLossError(
                        f"topic {topic} partition {partition} disappeared after the broker had "
                        "acknowledged messages to it; they are lost"
                    ) from exc
                if not _retriable(exc) or loop.time() + backoff >= deadline:
                    raise KafkaSinkError(
                        f"producing {end - start} messages to topic {topic} partition "
                        f"{partition} failed after {attempt} attempt(s): "
                        f"{type(exc).__name__}: {exc}"
                    ) from exc
                log.warning(
                    "retrying %d messages to topic %s partition %d after %s (attempt %d)",
                    end - start,
                    topic,
                    partition,
                    type(exc).__name__,
                    attempt,
                )
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, _MAX_BACKOFF_S)
            attempt += 1


def _retriable(exc: KafkaError) -> bool:
    """aiokafka marks transient errors ``retriable``; an expired batch is a timeout, too."""
    return bool(getattr(exc, "retriable", False)) or isinstance(exc, KafkaTimeoutError)


async def new_kafka_producer(config: KafkaConfig) -> KafkaProducer | RdKafkaProducer:
    """Connect, check or create the default topic and lower ``max-message-bytes`` as TiCDC
    does at sink creation; raise a KafkaSinkError naming the servers or topic otherwise. The
    producer library is ``kafka-client``'s: aiokafka (this module's) or librdkafka."""
    topics = await KafkaTopicManager.connect(config)
    client: AIOKafkaProducer | None = None
    try:
        existing = await topics.describe_partitions(config.topic)
        if existing is not None and config.partition_num is not None:
            if config.partition_num > existing:
                raise KafkaConfigError(
                    f"partition-num {config.partition_num} is larger than the {existing} "
                    f"partitions of the existing topic {config.topic}"
                )
            if config.partition_num < existing:
                log.warning(
                    "partition-num %d is less than the %d partitions of topic %s; using all",
                    config.partition_num,
                    existing,
                    config.topic,
                )
        max_bytes = await topics.adjust_max_message_bytes(config.topic, config.max_message_bytes)
        await topics.partition_count(config.topic)
        if config.client == "librdkafka":
            from tisink.eventsink.kafka.rdkafka_producer import new_rdkafka_producer

            return await new_rdkafka_producer(config, topics, max_bytes)
        client = AIOKafkaProducer(**config.producer_kwargs(max_bytes))
        await dial(config, client.start, "producer")
    except BaseException:
        if client is not None:
            with contextlib.suppress(Exception):
                await client.stop()
        await topics.close()
        raise
    return KafkaProducer(config, topics, client, max_bytes)
