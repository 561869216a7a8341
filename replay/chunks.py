"""A chunk: records of one source partition, in order, ready for ``Producer.send``.

Sources turn what they read into chunks where they read it (a folder's reader processes, the
Kafka consumer's thread), so the sender only passes record lists on: the key, value and
headers tuples the producers take, the records' timestamps (for ``--speed``) and their size.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from tisink.replay.records import ReplayRecord

if TYPE_CHECKING:  # the codec package is not imported by reader processes
    from tisink.codec.message import Headers, Record
    from tisink.replay.plain_block import PlainBlock


class Chunk(NamedTuple):
    loop: int
    """The pass (``--loop``) it belongs to, from 0."""
    partition: int
    records: list[Record]
    stamps: list[int | None]
    """Each record's timestamp (None where the source has none)."""
    first_offset: int
    """The source offset of the first record (for messages)."""
    size: int
    """Key, value and header bytes of the records."""
    largest: int
    """Key and value bytes of the largest record (or more): the producers' size check."""


class ChunkBuilder:
    """Gathers a partition's records into the producers' tuples, with their timestamps, size
    and largest record; a tombstone (null value: TiCDC's avro DELETE, a compacted topic's
    delete) is sent as one."""

    __slots__ = ("first", "largest", "partition", "records", "size", "stamps")

    def __init__(self, partition: int) -> None:
        self.partition = partition
        self._reset()

    def _reset(self) -> None:
        self.records: list[Record] = []
        self.stamps: list[int | None] = []
        self.first = self.size = self.largest = 0

    def add(
        self,
        offset: int,
        key: bytes | None,
        value: bytes | None,
        headers: Headers,
        stamp: int | None,
    ) -> int:
        """Take one record (a ReplayRecord's fields); the count gathered."""
        records = self.records
        if not records:
            self.first = offset
        bare = (0 if value is None else len(value)) + (0 if key is None else len(key))
        self.size += bare
        if bare > self.largest:
            self.largest = bare
        if headers:
            self.size += sum(len(name) + len(data) for name, data in headers)
            records.append((key, value, headers))
        else:
            records.append((key, value))
        self.stamps.append(stamp)
        return len(records)

    def extend(self, block: PlainBlock, start: int, size: int) -> int:
        """Take a plain block's records (header-less, none a tombstone) from ``start`` on
        until ``size`` are gathered; where it stopped."""
        gathered = self.records
        end = min(len(block.records), start + size - len(gathered))
        if not gathered:
            self.first = int(block.offsets[start][1:-1])
        sizes = block.sizes[start:end]
        if sizes:
            self.size += sum(sizes)
            self.largest = max(self.largest, max(sizes))
        gathered += block.records[start:end]
        self.stamps += block.stamps[start:end]
        return end

    def take(self, loop: int) -> Chunk:
        """The chunk of what was gathered; the builder starts empty again."""
        chunk = Chunk(
            loop, self.partition, self.records, self.stamps, self.first, self.size, self.largest
        )
        self._reset()
        return chunk


def to_chunk(loop: int, partition: int, records: Sequence[ReplayRecord]) -> Chunk:
    """The chunk of ``records``."""
    builder = ChunkBuilder(partition)
    for record in records:
        builder.add(*record)
    return builder.take(loop)


def records_size(records: Sequence[Record]) -> int:
    """Key, value and header bytes of ``records`` (for a part of a chunk)."""
    size = 0
    for record in records:
        size += len(record[1] or b"") + len(record[0] or b"")
        if len(record) == 3:
            size += sum(len(name) + len(data) for name, data in record[2])
    return size
