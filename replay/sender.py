"""Sending a replay source's records through any MQ producer (Kafka with either client, files).

One reader (the feeder) routes the source's chunks into a small bounded queue per target
partition; one sender per target partition takes what its queue holds, asks the pacer how much
may go, and hands it to ``Producer.send``, which returns once the destination acknowledged it.
Each partition has up to two sends in flight (the producers queue a partition's sends in call
order, and the librdkafka one queues the next while the last waits for its acks), so order
within a partition is the source's, memory holds a few chunks a partition whatever the
source's size, and the feeder reads and decodes the next chunks while the broker is
acknowledging. A failed send fails the replay; a send already queued after it may have been
written (at-least-once, as TiCDC's producers).

Routing: ``same`` sends each record to the partition number it had (the target needs at least
as many partitions); ``key`` routes by Kafka's default partitioner (murmur2 of the key, the
source partition for a null key), keeping every key's order when partition counts differ.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import cast

from aiokafka.partitioner import murmur2

from tisink.codec.message import Record
from tisink.eventsink.mq.producer import Producer, SizedRecords
from tisink.eventsink.stats import AckedSeconds
from tisink.replay.chunks import Chunk, records_size
from tisink.replay.errors import ReplayError
from tisink.replay.pacing import Pacer, SpeedPacer
from tisink.replay.routing import Routing
from tisink.replay.sources import AtHand, ReplaySource

Stamp = Callable[[Chunk], Chunk]
"""Fills in the timestamps a chunk lacks (from the commit ts its messages carry)."""
OnHanded = Callable[[], Callable[[int], None]]
"""Called as records are handed to the producer; what it returns is called with their count
once they are acknowledged (the acknowledgement latency recorder)."""

_QUEUED_CHUNKS = 8
"""Chunks waiting per target partition: enough that a send at line rate merges several."""
_SENDS_IN_FLIGHT = 2
"""Sends of a target partition at a time: the next queues while the last waits for its acks."""
_MAX_SEND = 16384
"""Records of one ``send`` at line rate (the producer splits them into record batches); every
send ends in a partial batch, so larger sends mean fewer, fuller produce requests."""


@dataclass
class ReplayStats:
    records: int = 0
    bytes: int = 0
    """Key, value and header bytes acknowledged."""
    sends: int = 0
    first_sent: float = 0.0
    """``time.perf_counter()`` when the first records were handed over."""
    last_acked: float = 0.0
    seconds: AckedSeconds = field(default_factory=dict)
    """Epoch second -> (records, bytes) acknowledged in it."""
    partitions: dict[int, int] = field(default_factory=dict)
    """Target partition -> records acknowledged."""
    loading: tuple[int, int] | None = None
    """Records and bytes read into memory so far while ``--preload`` loads the source (None
    otherwise), for the progress line."""


class ReplaySender:
    def __init__(
        self,
        producer: Producer,
        topic: str,
        *,
        routing: Routing = Routing.same,
        pacer: Pacer | None = None,
        on_handed: OnHanded | None = None,
        stamp: Stamp | None = None,
        stats: ReplayStats | None = None,
    ) -> None:
        self.producer = producer
        self.topic = topic
        self.routing = routing
        self.pacer = pacer
        self.on_handed = on_handed
        self.stamp = stamp if isinstance(pacer, SpeedPacer) else None
        self.stats = stats if stats is not None else ReplayStats()
        """What was acknowledged (the caller's, so it is at hand when the replay fails)."""
        self._queues: list[asyncio.Queue[Chunk | None]] = []
        self._loop0 = [0, 0, 0]
        """min, max timestamp and records of the first pass (the span of a --speed loop)."""

    async def run(self, source: ReplaySource, loops: int = 1) -> ReplayStats:
        """Send ``loops`` passes of ``source``; raise on the first failure (nothing after a
        failed send of the same partition is sent)."""
        count = await self.producer.partition_count(self.topic)
        if self.routing is Routing.same and source.partition_count() > count:
            raise ReplayError(
                f"the source topic {source.topic} has {source.partition_count()} partitions "
                f"and the target topic {self.topic} {count}; route by key (--routing key) or "
                "replay into a topic with as many partitions"
            )
        self._queues = [asyncio.Queue(_QUEUED_CHUNKS) for _ in range(count)]
        try:
            async with asyncio.TaskGroup() as group:
                for partition in range(count):
                    group.create_task(self._send_partition(partition))
                group.create_task(self._feed_all(source, loops))
        except BaseExceptionGroup as failed:
            raise _first(failed) from None
        return self.stats

    async def _feed_all(self, source: ReplaySource, loops: int) -> None:
        """One feeder per stream (a folder's partition files each, a Kafka consumer alone), so
        a partition whose queue is full never holds up the others."""
        if isinstance(self.pacer, SpeedPacer):
            known = source.time_range()
            if known is not None:
                self.pacer.set_origin(known[0])
                self.pacer.span_ms = known[1] - known[0] + 1.0
        streams = source.streams(loops)
        await asyncio.gather(*(self._feed(source, stream) for stream in streams))
        for queue in self._queues:
            await queue.put(None)  # the end of the source

    async def _feed(self, source: ReplaySource, chunks: Iterator[Chunk]) -> None:
        while (chunk := await self._next(source, chunks)) is not None:
            if self.stamp is not None and None in chunk.stamps:
                chunk = self.stamp(chunk)
            self._check(chunk)
            if self.routing is Routing.same:
                await self._queues[chunk.partition].put(chunk)
            else:
                for partition, part in self._by_key(chunk).items():
                    await self._queues[partition].put(part)

    @staticmethod
    async def _next(source: ReplaySource, chunks: Iterator[Chunk]) -> Chunk | None:
        if source.blocking and not (isinstance(chunks, AtHand) and chunks.at_hand()):
            return await asyncio.to_thread(next, chunks, None)
        return next(chunks, None)

    def _check(self, chunk: Chunk) -> None:
        """Refuse --speed without timestamps; note the first pass's time span when the source
        could not say it before reading."""
        if not isinstance(self.pacer, SpeedPacer):
            return
        if None in chunk.stamps:
            raise ReplayError(
                f"partition {chunk.partition} of the source has records without a timestamp "
                "(a file-sink folder): --speed needs a capture or a Kafka topic; use --rate"
            )
        known = cast(list[int], chunk.stamps)
        low, high, seen = self._loop0
        if chunk.loop == 0:
            self._loop0 = [
                min(known) if not seen else min(low, *known),
                max(known) if not seen else max(high, *known),
                seen + len(known),
            ]
            if not seen:
                self.pacer.set_origin(min(known))
        elif not self.pacer.span_ms:
            gap = (high - low) / (seen - 1) if seen > 1 else 1.0
            self.pacer.span_ms = high - low + max(gap, 1.0)

    def _by_key(self, chunk: Chunk) -> dict[int, Chunk]:
        count = len(self._queues)
        parts: dict[int, tuple[list[Record], list[int | None]]] = {}
        for record, stamp in zip(chunk.records, chunk.stamps, strict=True):
            key = record[0]
            partition = chunk.partition if key is None else murmur2(key) & 0x7FFFFFFF
            records, stamps = parts.setdefault(partition % count, ([], []))
            records.append(record)
            stamps.append(stamp)
        return {
            p: Chunk(
                chunk.loop,
                p,
                records,
                stamps,
                chunk.first_offset,
                records_size(records),
                chunk.largest,
            )
            for p, (records, stamps) in parts.items()
        }

    async def _send_partition(self, partition: int) -> None:
        """Send the partition's chunks with up to ``_SENDS_IN_FLIGHT`` sends at a time (in
        order; a producer that cannot overlap them runs them one after the other)."""
        sends: deque[asyncio.Task[None]] = deque()
        try:
            async for records, size in self._parts(partition):
                sends.append(asyncio.create_task(self._send(partition, records, size)))
                if len(sends) >= _SENDS_IN_FLIGHT:
                    await sends.popleft()
            while sends:
                await sends.popleft()
        finally:
            for send in sends:
                send.cancel()
            await asyncio.gather(*sends, return_exceptions=True)

    async def _parts(self, partition: int) -> AsyncIterator[tuple[list[Record], int]]:
        """What to send next: queued chunks merged up to ``_MAX_SEND`` records at line rate,
        or the parts of a chunk the pacer lets go."""
        queue = self._queues[partition]
        merge = not isinstance(self.pacer, SpeedPacer)
        while True:
            chunk = await queue.get()
            if chunk is None:
                return
            records, stamps, size, largest = chunk.records, chunk.stamps, chunk.size, chunk.largest
            if merge and len(records) < _MAX_SEND and not queue.empty():
                records, stamps = list(records), list(stamps)  # a chunk's own lists stay as read
            while merge and len(records) < _MAX_SEND and not queue.empty():
                following = queue.get_nowait()
                if following is None:
                    queue.put_nowait(None)
                    break
                records += following.records
                stamps += following.stamps
                size += following.size
                largest = max(largest, following.largest)
            if self.pacer is None:
                yield SizedRecords(records, largest), size
                continue
            start = 0
            while start < len(records):
                count = await self.pacer.wait(chunk.loop, stamps, start)
                part = SizedRecords(records[start : start + count], largest)
                yield part, records_size(part)
                start += count

    async def _send(self, partition: int, records: list[Record], size: int) -> None:
        stats = self.stats
        if not stats.first_sent:
            stats.first_sent = time.perf_counter()
        acked = self.on_handed() if self.on_handed is not None else None
        await self.producer.send(self.topic, partition, records)
        if acked is not None:
            acked(len(records))
        stats.last_acked = time.perf_counter()
        stats.records += len(records)
        stats.bytes += size
        stats.sends += 1
        stats.partitions[partition] = stats.partitions.get(partition, 0) + len(records)
        second = int(time.time())
        messages, total = stats.seconds.get(second, (0, 0))
        stats.seconds[second] = (messages + len(records), total + size)


def _first(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The first failure of a group (a sender's or the feeder's), for a plain error."""
    first = group.exceptions[0]
    return _first(first) if isinstance(first, BaseExceptionGroup) else first
