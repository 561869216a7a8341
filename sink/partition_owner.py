"""Sinks that write one partition of an MQ topic: the Spark engine's partition owners.

Any scheme whose provider is an ``MQTargetProvider`` (Kafka, files, plugins) can be owned: the
Spark job gives every (topic, partition) to one task, which must write that partition and
nothing else. Its MQ DML and DDL sinks are the usual ones over a producer *view*: the owned
topic seems to have a single partition, every other topic none. So the DDL sink's broadcasts
(DDL, WATERMARK, BOOTSTRAP at start) and the DML sink's bootstrap copies and heartbeats land
once, in the owned partition, and the sinks' counters count what was really written. The DTS
``ps`` header then numbers the partition's records 1, 2, 3... as one task writes all of them.

Rows reach an owner already routed (the Spark job's first stage runs the same router with the
real partition counts), so the view's "partition 0" is always the owned one, and the owner's
sinks route by the dispatch rules' topics with the table dispatcher, which costs nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from tisink.codec.message import Record
from tisink.ddlsink.base import DDLSink
from tisink.eventsink.capabilities import acknowledged_ends
from tisink.eventsink.errors import EventSinkError
from tisink.eventsink.mq.dml_sink import MQDMLSink
from tisink.eventsink.mq.producer import NumbersRecords, Producer
from tisink.eventsink.stats import AcknowledgedEnds
from tisink.sink.capabilities import MQTarget
from tisink.sink.config import ChangefeedConfig
from tisink.sink.errors import SinkError
from tisink.sink.factory import SinkFactory
from tisink.sink.mq_sinks import (
    new_fault_injector,
    new_mq_ddl_sink,
    new_mq_dml_sink,
    new_sequences,
)


class OwnedPartition:
    """A Producer view of one (topic, partition) of ``inner``: that topic has one partition
    (the owned one), every other topic none. Closing it closes ``inner`` once."""

    def __init__(self, inner: Producer, topic: str, partition: int) -> None:
        self.inner = inner
        self.topic = topic
        self.partition = partition
        self._closed = False

    async def partition_count(self, topic: str) -> int:
        return 1 if topic == self.topic else 0

    async def send(self, topic: str, partition: int, records: Sequence[Record]) -> None:
        self._check(topic, partition)
        await self.inner.send(self.topic, self.partition, records)

    async def close(self) -> None:
        if not self._closed:
            self._closed = True
            await self.inner.close()

    def acknowledged_offsets(self) -> AcknowledgedEnds:
        """What ``inner`` saw acknowledged, under the real topic and partition."""
        return acknowledged_ends(self.inner)

    def _check(self, topic: str, partition: int) -> None:
        if topic != self.topic or partition != 0:
            raise EventSinkError(
                f"the owner of topic {self.topic!r} partition {self.partition} was asked to "
                f"write topic {topic!r} partition {partition}"
            )


class _OwnedNumberingPartition(OwnedPartition):
    """The view of a producer that numbers records itself (``NumbersRecords``, the file
    producer), so the sequence header keeps counting in the file."""

    def __init__(
        self, inner: Producer, numbering: NumbersRecords, topic: str, partition: int
    ) -> None:
        super().__init__(inner, topic, partition)
        self._numbering = numbering

    async def send_sequenced(
        self, topic: str, partition: int, records: Sequence[Record], header: str
    ) -> None:
        self._check(topic, partition)
        await self._numbering.send_sequenced(self.topic, self.partition, records, header)


def owned_partition(inner: Producer, topic: str, partition: int) -> OwnedPartition:
    if isinstance(inner, NumbersRecords):
        return _OwnedNumberingPartition(inner, inner, topic, partition)
    return OwnedPartition(inner, topic, partition)


def _target(factory: SinkFactory) -> MQTarget:
    target = factory.mq_target()
    if target is None:
        raise SinkError(f"scheme {factory.scheme!r} has no topics or partitions")
    return target


async def topic_partition_counts(factory: SinkFactory, topics: Iterable[str]) -> dict[str, int]:
    """Partitions of the default topic and of ``topics``, creating missing topics as the
    sinks would (Kafka's ``auto-create-topic``, ``partition-num``)."""
    target = _target(factory)
    producer = (await factory.open_producer(target)).producer
    try:
        wanted = dict.fromkeys([target.default_topic, *topics])
        return {topic: await producer.partition_count(topic) for topic in wanted}
    finally:
        await producer.close()


async def open_partition_sinks(
    factory: SinkFactory, topic: str, partition: int
) -> tuple[MQDMLSink, DDLSink]:
    """An MQ DML sink and DDL sink writing only ``partition`` of ``topic``, sharing one
    producer (one connection, one ``ps`` count) as the file provider's sinks do. The DML sink
    has no BOOTSTRAP cadence of its own: the owner writes its share of the feed's."""
    target = _target(factory)
    inner, max_bytes = await factory.open_producer(target)
    producer = owned_partition(inner, topic, partition)
    sequences = new_sequences(target.config)
    faults = new_fault_injector(target.config, owned_partition=partition)
    dml = new_mq_dml_sink(
        producer,
        _topics_only(target.config),
        target.default_topic,
        factory.clock,
        scheme=target.scheme,
        max_message_bytes=max_bytes,
        sequences=sequences,
        own_cadence=False,
        faults=faults,
    )
    ddl = new_mq_ddl_sink(
        producer,
        target.config,
        target.default_topic,
        factory.clock,
        max_message_bytes=max_bytes,
        sequences=sequences,
        faults=faults,
    )
    return dml, ddl


def _topics_only(config: ChangefeedConfig) -> ChangefeedConfig:
    """The dispatch rules' topics, every partition dispatcher replaced by ``table``."""
    rules = tuple(
        dataclasses.replace(rule, partition="table", index="", columns=())
        for rule in config.dispatch_rules
    )
    return dataclasses.replace(config, dispatch_rules=rules)
