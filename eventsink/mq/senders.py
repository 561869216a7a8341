"""The MQ DML sink's partition senders: one per (topic, partition) for the sink's life; and the
per-partition sequence header (DTS's ``ps``) the MQ sinks' producers stamp on each record."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence

from tisink.codec.message import Record, with_sequence
from tisink.eventsink.capabilities import acknowledged_ends
from tisink.eventsink.errors import EventSinkError
from tisink.eventsink.mq.partition_sender import PartitionSender, Segment
from tisink.eventsink.mq.producer import NumbersRecords, Producer
from tisink.eventsink.stats import AcknowledgedEnds


class TopicSenders:
    """Sender slots per topic, grown but never replaced: a second sender for a partition
    would let two batches of it race, and the order per partition is the sink's promise."""

    def __init__(
        self,
        producer: Producer,
        acked: Callable[[list[Segment]], None],
        failed: Callable[[EventSinkError], None],
    ) -> None:
        self._producer = producer
        self._acked = acked
        self._failed = failed
        self._all: list[PartitionSender] = []
        self._by_topic: dict[str, list[PartitionSender | None]] = {}

    def __iter__(self) -> Iterator[PartitionSender]:
        return iter(self._all)

    def slots(self, topic: str, partitions: int) -> list[PartitionSender | None]:
        """The topic's slots, at least ``partitions`` of them; None where none started yet."""
        slots = self._by_topic.get(topic)
        if slots is None:
            slots = self._by_topic[topic] = []
        if len(slots) < partitions:
            slots.extend([None] * (partitions - len(slots)))
        return slots

    def start(self, topic: str, partition: int) -> PartitionSender:
        """Fill an empty slot of ``topic`` (see ``slots``) with a new sender."""
        sender = PartitionSender(self._producer, topic, partition, self._acked, self._failed)
        self.slots(topic, partition + 1)[partition] = sender
        self._all.append(sender)
        return sender

    def put(self, topic: str, partition: int, segment: Segment) -> None:
        sender = self.slots(topic, partition + 1)[partition] or self.start(topic, partition)
        sender.put(segment)


class PartitionSequences:
    """Per (topic, partition) counters of a sequence header (``ProtocolSpec.
    partition_sequence_header``, DTS's ``ps``): 1, 2, 3... one per record, continuous over
    everything sent to the partition through any ``SequencedProducer`` sharing this object.

    Numbers are given and records written under one lock per partition, so they reach the
    partition in number order even when the DML and DDL sinks send through separate producers
    (a checkpoint may race a later transaction's batch). Counters live in this process only,
    which is why the Spark engine gives each partition a single owning task.
    """

    def __init__(self, header: str) -> None:
        self.header = header
        self._next: dict[tuple[str, int], int] = {}
        self._locks: dict[tuple[str, int], asyncio.Lock] = {}

    def lock(self, topic: str, partition: int) -> asyncio.Lock:
        key = (topic, partition)
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        return lock

    def stamp(self, topic: str, partition: int, records: Sequence[Record]) -> list[Record]:
        """``records`` with the next numbers of the partition as their first header."""
        key = (topic, partition)
        number = self._next.get(key, 1)
        self._next[key] = number + len(records)
        return with_sequence(records, self.header, number)


class SequencedProducer:
    """A Producer that stamps each batch with its partition's sequence numbers as it hands it to
    ``inner``; wrap the DML and the DDL sink's producers with one shared PartitionSequences.

    A producer that numbers records itself (``send_sequenced``, the file producer: offset + 1,
    under its file lock, so every process writing the partition continues one count) is left
    to do so.
    """

    def __init__(self, inner: Producer, sequences: PartitionSequences) -> None:
        self.inner = inner
        self.sequences = sequences

    async def partition_count(self, topic: str) -> int:
        return await self.inner.partition_count(topic)

    async def send(self, topic: str, partition: int, records: Sequence[Record]) -> None:
        if not records:
            return
        inner = self.inner
        if isinstance(inner, NumbersRecords):
            await inner.send_sequenced(topic, partition, records, self.sequences.header)
            return
        async with self.sequences.lock(topic, partition):
            await self.inner.send(topic, partition, self.sequences.stamp(topic, partition, records))

    def acknowledged_offsets(self) -> AcknowledgedEnds:
        return acknowledged_ends(self.inner)

    async def close(self) -> None:
        await self.inner.close()
