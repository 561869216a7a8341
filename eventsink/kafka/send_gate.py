"""What both Kafka producers check before a send, and the lock that orders a partition's sends."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from tisink.codec.message import Record
from tisink.eventsink.kafka.errors import KafkaSinkError
from tisink.eventsink.kafka.sizes import check_sizes


class SendGate:
    """A producer's open/closed state and per-partition locks: a send holds its partition's
    lock while it queues its records, so they queue in the order of the ``send`` calls."""

    __slots__ = ("_locks", "closed")

    def __init__(self) -> None:
        self.closed = False
        self._locks: dict[tuple[str, int], asyncio.Lock] = {}

    def check(
        self, topic: str, partition: int, records: Sequence[Record], max_message_bytes: int
    ) -> None:
        """Refuse a send on a closed producer or with a record over ``max_message_bytes``."""
        if self.closed:
            raise KafkaSinkError(
                f"producer closed; cannot send to topic {topic} partition {partition}"
            )
        check_sizes(records, max_message_bytes, topic, partition)

    def lock(self, topic: str, partition: int, count: int) -> asyncio.Lock:
        """The partition's lock; KafkaSinkError when the topic's ``count`` partitions do not
        include it."""
        if not 0 <= partition < count:
            raise KafkaSinkError(
                f"topic {topic} has {count} partitions; partition {partition} does not exist"
            )
        lock = self._locks.get((topic, partition))
        if lock is None:
            lock = self._locks[(topic, partition)] = asyncio.Lock()
        return lock
