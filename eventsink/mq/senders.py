"""The MQ DML sink's partition senders: one per (topic, partition) for the sink's life."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from tisink.eventsink.errors import EventSinkError
from tisink.eventsink.mq.partition_sender import PartitionSender, Segment
from tisink.eventsink.mq.producer import Producer


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
