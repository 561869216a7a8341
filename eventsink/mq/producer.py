"""The producer interface the MQ sinks write through: Kafka, or files ("Kafka without a broker")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from tisink.codec.message import Record


class Producer(Protocol):
    """Delivers batches of messages to (topic, partition) and says when they are durable."""

    async def partition_count(self, topic: str) -> int:
        """Partitions of ``topic``, creating the topic (with the configured count) if allowed."""
        ...

    async def send(self, topic: str, partition: int, records: Sequence[Record]) -> None:
        """Deliver ``(key, value)`` records in order to one partition; return once all are
        acknowledged.

        Retriable failures are retried inside; a fatal one raises an EventSinkError that names
        the topic, the partition and the cause. Callbacks are the caller's business.
        """
        ...

    async def close(self) -> None: ...


AcknowledgedEnds = dict[tuple[str, int], int]
"""(topic, partition) -> last offset the destination acknowledged + 1."""


def acknowledged_ends(producer: object) -> AcknowledgedEnds:
    """What ``producer`` saw acknowledged, for producers that track it (``acknowledged_offsets``,
    e.g. Kafka's); empty for the others."""
    track = getattr(producer, "acknowledged_offsets", None)
    return track() if callable(track) else {}


def merge_ends(*parts: AcknowledgedEnds) -> AcknowledgedEnds:
    """Ends of several producers writing the same partitions: the furthest of each."""
    merged: AcknowledgedEnds = {}
    for part in parts:
        for key, end in part.items():
            if end > merged.get(key, 0):
                merged[key] = end
    return merged
