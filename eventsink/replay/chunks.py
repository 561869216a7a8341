"""A chunk: records of one source partition, in order, ready for ``Producer.send``.

Sources turn what they read into chunks where they read it (a folder's reader processes, the
Kafka consumer's thread), so the sender only passes record lists on: the key, value and
headers tuples the producers take, the records' timestamps (for ``--speed``) and their size.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from tisink.eventsink.replay.errors import ReplayError
from tisink.eventsink.replay.records import ReplayRecord

if TYPE_CHECKING:  # the codec package is not imported by reader processes
    from tisink.codec.message import Record


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


def to_chunk(loop: int, partition: int, records: Sequence[ReplayRecord]) -> Chunk:
    """The chunk of ``records``; ReplayError for a tombstone (null value), which the
    producers cannot send."""
    out: list[Record] = []
    size = largest = 0
    for record in records:
        key, value, headers = record.key, record.value, record.headers
        if value is None:
            raise ReplayError(
                f"partition {partition} offset {record.offset} of the source is a tombstone "
                "(null value), which replay cannot send"
            )
        bare = len(value) + (len(key) if key is not None else 0)
        size += bare
        if bare > largest:
            largest = bare
        if headers:
            size += sum(len(name) + len(data) for name, data in headers)
            out.append((key, value, headers))
        else:
            out.append((key, value))
    stamps = [record.timestamp_ms for record in records]
    first = records[0].offset if records else 0
    return Chunk(loop, partition, out, stamps, first, size, largest)


def records_size(records: Sequence[Record]) -> int:
    """Key, value and header bytes of ``records`` (for a part of a chunk)."""
    size = 0
    for record in records:
        size += len(record[1]) + (len(record[0]) if record[0] is not None else 0)
        if len(record) == 3:
            size += sum(len(name) + len(data) for name, data in record[2])
    return size
