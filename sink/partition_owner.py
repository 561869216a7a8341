"""Sinks that write some partitions of MQ topics: the Spark engine's partition owners.

Any scheme whose provider is an ``MQTargetProvider`` (Kafka, files, plugins) can be owned: the
Spark job gives every (topic, partition) to one owner, and a task plays one owner or several
through one pair of sinks, which must write those partitions and nothing else. Its MQ DML and
DDL sinks are the usual ones over a producer *view*: an owned topic seems to have as many
partitions as the task owns of it (0, 1, ... standing for the real ones in order), every other
topic none. So the DDL sink's broadcasts (DDL, WATERMARK, BOOTSTRAP at start) and the DML
sink's bootstrap copies and heartbeats land once in each owned partition, and the sinks'
counters count what was really written. The DTS ``ps`` header then numbers each partition's
records 1, 2, 3... as one task writes all of them.

Rows reach an owner already routed (the task ran the same router with the real partition
counts), so the DML sink's router (``OwnedRouter``) dispatches with the real counts and names
the view's partition; a task of one owned partition skips that: every row is its partition 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from tisink.codec.message import Record
from tisink.ddlsink.base import DDLSink
from tisink.eventsink.capabilities import acknowledged_ends
from tisink.eventsink.errors import EventSinkError
from tisink.eventsink.mq.dml_sink import MQDMLSink
from tisink.eventsink.mq.producer import NumbersRecords, Producer
from tisink.eventsink.router import EventRouter
from tisink.eventsink.stats import AcknowledgedEnds
from tisink.model.events import RowChangedEvent
from tisink.model.table import TableInfo
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

Owned = dict[str, tuple[int, ...]]
"""Each owned topic's real partitions, in the order the view numbers them 0, 1, ..."""


def owned_by_topic(partitions: Iterable[tuple[str, int]]) -> Owned:
    """``partitions`` ((topic, partition), in the task's order) grouped by topic."""
    owned: dict[str, list[int]] = {}
    for topic, partition in partitions:
        owned.setdefault(topic, []).append(partition)
    return {topic: tuple(numbers) for topic, numbers in owned.items()}


class OwnedPartitions:
    """A Producer view of the ``owned`` partitions of ``inner``: an owned topic has as many
    partitions as are owned of it, numbered in ``owned``'s order; every other topic none.
    Closing it closes ``inner`` once."""

    def __init__(self, inner: Producer, owned: Owned) -> None:
        self.inner = inner
        self.owned = owned
        self._closed = False

    async def partition_count(self, topic: str) -> int:
        return len(self.owned.get(topic, ()))

    async def send(self, topic: str, partition: int, records: Sequence[Record]) -> None:
        await self.inner.send(topic, self.real(topic, partition), records)

    async def close(self) -> None:
        if not self._closed:
            self._closed = True
            await self.inner.close()

    def acknowledged_offsets(self) -> AcknowledgedEnds:
        """What ``inner`` saw acknowledged, under the real topics and partitions."""
        return acknowledged_ends(self.inner)

    def real(self, topic: str, partition: int) -> int:
        """The real partition the view's ``partition`` of ``topic`` stands for."""
        numbers = self.owned.get(topic, ())
        if not 0 <= partition < len(numbers):
            mine = ", ".join(f"{t!r} {list(p)}" for t, p in self.owned.items())
            raise EventSinkError(
                f"the owner of partitions {mine} was asked to write topic {topic!r} "
                f"partition {partition} of its view"
            )
        return numbers[partition]


class _OwnedNumberingPartitions(OwnedPartitions):
    """The view of a producer that numbers records itself (``NumbersRecords``, the file
    producer), so the sequence header keeps counting in the file."""

    def __init__(self, inner: Producer, numbering: NumbersRecords, owned: Owned) -> None:
        super().__init__(inner, owned)
        self._numbering = numbering

    async def send_sequenced(
        self, topic: str, partition: int, records: Sequence[Record], header: str
    ) -> None:
        real = self.real(topic, partition)
        await self._numbering.send_sequenced(topic, real, records, header)


def owned_partitions(inner: Producer, owned: Owned) -> OwnedPartitions:
    if isinstance(inner, NumbersRecords):
        return _OwnedNumberingPartitions(inner, inner, owned)
    return OwnedPartitions(inner, owned)


class OwnedRouter(EventRouter):
    """The DML sink's router over an ``OwnedPartitions`` view: a row's partition is the one
    the real dispatch rules give it with the topic's real partition count (``counts``), named
    as the view numbers it. With one owned partition of the topic that is always 0 (rows come
    routed), so nothing is computed."""

    def __init__(
        self, default_topic: str, config: ChangefeedConfig, owned: Owned, counts: dict[str, int]
    ) -> None:
        super().__init__(
            default_topic,
            config.dispatch_rules,
            case_sensitive=config.case_sensitive,
            time_zone=config.encoder.time_zone,
            avro_topic_rules=config.encoder.spec.avro_topic_rules,
        )
        self._config = config
        self._owned = owned
        self._counts = counts
        self._view = {
            topic: {real: index for index, real in enumerate(numbers)}
            for topic, numbers in owned.items()
        }

    def __reduce__(self) -> tuple[Any, ...]:
        return (OwnedRouter, (self.default_topic, self._config, self._owned, self._counts))

    def partition_for_row(self, row: RowChangedEvent, partition_num: int) -> int:
        if partition_num == 1:
            return 0
        topic = self.topic_for_row(row)
        real = row.partition  # routed by the task that plays it (``RowRouter.route``)
        if real is None:
            real = super().partition_for_row(row, self._counts.get(topic, 0))
        view = self._view.get(topic, {}).get(real)
        if view is None:
            raise EventSinkError(
                f"table {row.table.qualified_name}: a row of topic {topic!r} partition {real} "
                "reached a task that does not own it"
            )
        return view

    def partitions_for_rows(self, rows: Sequence[RowChangedEvent], partition_num: int) -> list[int]:
        """``partition_for_row`` of each row, the topic and its view looked up once a run of
        rows of one TableInfo (a merged request of many one-row transactions)."""
        if partition_num == 1:
            return [0] * len(rows)
        targets: list[int] = []
        add = targets.append
        table: TableInfo | None = None
        view: dict[int, int] = {}
        for row in rows:
            if row.table is not table:
                table = row.table
                view = self._view.get(self.topic_for_row(row), {})
            found = view.get(row.partition) if row.partition is not None else None
            add(self.partition_for_row(row, partition_num) if found is None else found)
        return targets


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
    factory: SinkFactory, partitions: Sequence[tuple[str, int]]
) -> tuple[MQDMLSink, DDLSink]:
    """An MQ DML sink and DDL sink writing only ``partitions`` ((topic, partition), at least
    one), sharing one producer (one connection, one ``ps`` count) as the file provider's sinks
    do. The DML sink has no BOOTSTRAP cadence of its own: the owner writes its share of the
    feed's."""
    target = _target(factory)
    inner, max_bytes = await factory.open_producer(target)
    owned = owned_by_topic(partitions)
    producer = owned_partitions(inner, owned)
    counts = {topic: await inner.partition_count(topic) for topic in owned}
    sequences = new_sequences(target.config)
    faults = new_fault_injector(target.config, owned=owned)
    dml = new_mq_dml_sink(
        producer,
        target.config,
        target.default_topic,
        factory.clock,
        scheme=target.scheme,
        max_message_bytes=max_bytes,
        sequences=sequences,
        own_cadence=False,
        faults=faults,
        router=OwnedRouter(target.default_topic, target.config, owned, counts),
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
