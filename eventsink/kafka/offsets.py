"""What the broker acknowledged, per partition: the check that acknowledged means stored.

A broker that keeps its log only in memory (the embedded Tansu) or loses a partition's leader
without a replica can come back empty, and then acknowledges the next produce at offset 0 as if
nothing had happened. Per partition, acknowledged offsets only move forward (a retried batch
whose first ack was lost lands later, never earlier), so a base offset below the end of what
was already acknowledged proves that acknowledged messages are gone. The ends are also what
``tisink verify`` compares the topic with after a play.
"""

from __future__ import annotations

from tisink.eventsink.kafka.errors import KafkaDataLossError


class AcknowledgedOffsets:
    """The end (last acknowledged offset + 1) of every partition this producer wrote."""

    __slots__ = ("_ends",)

    def __init__(self) -> None:
        self._ends: dict[tuple[str, int], int] = {}

    def acknowledged(self, topic: str, partition: int, base_offset: int, count: int) -> None:
        """Take in the ack of ``count`` messages written from ``base_offset``; raise
        KafkaDataLossError when the offset went back."""
        key = (topic, partition)
        end = self._ends.get(key, 0)
        if base_offset < end:
            raise KafkaDataLossError(
                f"topic {topic} partition {partition}: the broker acknowledged offset "
                f"{base_offset} after offsets up to {end - 1}; it lost messages it had "
                f"acknowledged (offsets {base_offset} to {end - 1} at least), so nothing "
                "acknowledged on this partition can be trusted"
            )
        self._ends[key] = base_offset + count

    def check_partitions(self, topic: str, partitions: set[int]) -> None:
        """Raise KafkaDataLossError when the broker's metadata lost a partition of ``topic``
        that holds acknowledged messages (a topic recreated with fewer partitions)."""
        for (written, partition), end in sorted(self._ends.items()):
            if written == topic and partition not in partitions:
                raise KafkaDataLossError(
                    f"topic {topic} partition {partition}: the broker's metadata now lists "
                    f"{len(partitions)} partition(s) without it, after it had acknowledged "
                    f"offsets up to {end - 1} there; they are lost"
                )

    def topics(self) -> set[str]:
        """The topics with acknowledged messages."""
        return {key[0] for key in self._ends}

    def wrote(self, topic: str) -> bool:
        """True when some message of ``topic`` was acknowledged."""
        return any(key[0] == topic for key in self._ends)

    def ends(self) -> dict[tuple[str, int], int]:
        """(topic, partition) -> last acknowledged offset + 1."""
        return dict(self._ends)
