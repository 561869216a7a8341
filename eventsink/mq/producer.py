"""The producer interface the MQ sinks write through: Kafka, or files ("Kafka without a broker")."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple, Protocol, runtime_checkable

from tisink.codec.message import MessageType, Record


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


class SizedRecords(list[Record]):
    """Records whose size is bounded before sending (a replay's, measured where they were
    read): ``largest`` is at least the key plus value bytes of each, so a producer's size check
    is one comparison a send rather than a look at every record."""

    __slots__ = ("largest",)

    def __init__(self, records: Iterable[Record], largest: int) -> None:
        super().__init__(records)
        self.largest = largest


@runtime_checkable
class NumbersRecords(Protocol):
    """A producer that numbers a partition's records itself (the file producer, under its file
    lock), so a per-partition sequence header is stamped where the order is decided."""

    async def send_sequenced(
        self, topic: str, partition: int, records: Sequence[Record], header: str
    ) -> None: ...


class Mark(NamedTuple):
    """What a run of ``length`` consecutive records of a batch are: their message type, table
    (qualified name; "" for none) and commit ts (0 where the message has none, a BOOTSTRAP)."""

    type: MessageType
    table: str
    commit_ts: int
    length: int


@runtime_checkable
class SendsMarked(Protocol):
    """A producer that wants to know what it sends (the fault injector): the MQ sinks then
    call ``send_marked`` with ``marks`` covering ``records`` in order, instead of ``send``."""

    async def send_marked(
        self, topic: str, partition: int, records: Sequence[Record], marks: Sequence[Mark]
    ) -> None: ...
