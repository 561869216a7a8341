"""One ordered queue and sender task per (topic, partition) of the MQ DML sink.

TiCDC keeps the order of messages per partition by sending from a single loop; here each
partition has its own task, so partitions progress independently while each stays in order.
The queue holds segments, not messages: a segment is the part of one transaction (or of a run
of them) bound for this partition, or one BOOTSTRAP, so queueing, byte accounting and
acknowledgement cost one step per segment. The task takes every segment queued so far as one
batch, because a producer call per batch (not per message) is what makes the pipeline fast.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TypeVar

from tisink.codec.message import Message, MessageType, Record
from tisink.eventsink.errors import EventSinkError
from tisink.eventsink.mq.producer import Mark, Producer, SendsMarked

log = logging.getLogger(__name__)

T = TypeVar("T")


class Delivery:
    """A unit acknowledged as a whole: one transaction or a run of one table's transactions
    (a segment per partition it touches), or one copy of a BOOTSTRAP. Its bytes stay in
    flight, and its rows uncounted, until the last segment is acknowledged; then ``callback``
    fires."""

    __slots__ = ("callback", "remaining", "rows", "size")

    def __init__(
        self, segments: int, callback: Callable[[], None] | None, *, size: int, rows: int
    ) -> None:
        self.remaining = segments
        self.callback = callback
        self.size = size
        self.rows = rows

    def acked(self) -> bool:
        """One segment acknowledged; True when it was the last."""
        self.remaining -= 1
        if self.remaining:
            return False
        if self.callback is not None:
            self.callback()
        return True


class Segment:
    """Records of one message type and table for one partition, part of one Delivery
    (``commit_ts``: the last transaction's)."""

    __slots__ = ("commit_ts", "delivery", "records", "table", "type")

    def __init__(
        self,
        records: list[Record],
        type: MessageType,
        table: str,
        delivery: Delivery,
        commit_ts: int = 0,
    ) -> None:
        self.records = records
        self.type = type
        self.table = table
        self.delivery = delivery
        self.commit_ts = commit_ts

    @classmethod
    def of_message(cls, message: Message) -> Segment:
        """A message that is a delivery of its own (a BOOTSTRAP copy)."""
        delivery = Delivery(1, None, size=message.length(), rows=message.rows)
        return cls([message.record()], message.type, message.table, delivery)


def marks_of(batch: list[Segment]) -> list[Mark]:
    """What a SendsMarked producer is told of a batch: one mark per segment."""
    return [Mark(s.type, s.table, s.commit_ts, len(s.records)) for s in batch]


def group_by_partition(
    targets: list[int], records: list[T], partitions: int
) -> list[tuple[int, list[T]]]:
    """Records by target partition, each list in the original order; one list when all go
    to one partition (the usual case of a small transaction or a table dispatcher)."""
    first = targets[0]
    if targets.count(first) == len(targets):
        return [(first, records)]
    if partitions > len(targets):  # many partitions, few rows: only the ones touched
        touched: dict[int, list[T]] = {}
        for partition, record in zip(targets, records, strict=True):
            touched.setdefault(partition, []).append(record)
        return sorted(touched.items())
    groups: list[list[T]] = [[] for _ in range(partitions)]
    appends = [group.append for group in groups]
    for partition, record in zip(targets, records, strict=True):
        appends[partition](record)
    return [(partition, group) for partition, group in enumerate(groups) if group]


class PartitionSender:
    """Sends the segments of one partition in queue order, batch by batch.

    ``on_acked`` gets each delivered batch of segments (the sink releases bytes and fires
    callbacks); ``on_failed`` gets the error of a failed send, after which this sender stops
    for good.
    """

    def __init__(
        self,
        producer: Producer,
        topic: str,
        partition: int,
        on_acked: Callable[[list[Segment]], None],
        on_failed: Callable[[EventSinkError], None],
    ) -> None:
        self.topic = topic
        self.partition = partition
        self._producer = producer
        self._on_acked = on_acked
        self._on_failed = on_failed
        self._marked = producer if isinstance(producer, SendsMarked) else None
        self._queue: list[Segment] = []
        self._ready = asyncio.Event()
        self._closing = False
        self._stopped = False
        self._task = asyncio.get_running_loop().create_task(
            self._run(), name=f"mq-sender {topic}/{partition}"
        )

    def put(self, segment: Segment) -> None:
        self._queue.append(segment)
        self._ready.set()

    @property
    def pending(self) -> int:
        """Segments queued and not yet handed to the producer."""
        return len(self._queue)

    def stop(self) -> None:
        """Stop after the current send; whatever is still queued is dropped (the sink is dead)."""
        self._stopped = True
        self._ready.set()

    async def close(self) -> None:
        """Send what is queued, then end the task."""
        self._closing = True
        self._ready.set()
        await self._task

    async def _run(self) -> None:
        while True:
            await self._ready.wait()
            self._ready.clear()
            if self._stopped:
                return
            if not self._queue:
                if self._closing:
                    return
                continue
            batch, self._queue = self._queue, []
            if len(batch) == 1:
                records = batch[0].records
            else:
                records = []
                for segment in batch:
                    records.extend(segment.records)
            try:
                if self._marked is None:
                    await self._producer.send(self.topic, self.partition, records)
                else:
                    await self._marked.send_marked(
                        self.topic, self.partition, records, marks_of(batch)
                    )
            except asyncio.CancelledError:
                raise
            except Exception as err:
                tables = ", ".join(sorted({segment.table for segment in batch if segment.table}))
                failure = EventSinkError(
                    f"send to topic {self.topic!r} partition {self.partition} failed "
                    f"({len(records)} messages of {tables or 'no table'}): {err}"
                )
                failure.__cause__ = err
                log.error("%s", failure)
                self._stopped = True
                self._on_failed(failure)
                return
            self._on_acked(batch)
            if self._queue or self._closing:
                self._ready.set()
