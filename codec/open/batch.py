"""Open Protocol framing: events packed into batched messages (ticdc ``open/encoder.go``).

A message's key stream is the 8-byte big-endian batch version (1), then per event an 8-byte
big-endian length and the key JSON; its value stream holds per event an 8-byte length and the
value bytes. An event starts a new message when the current one holds ``max-batch-size`` events
or when its ``Length()`` (key + value + the 36-byte record overhead) plus the event's key, value
and 16 length bytes would pass ``max-message-bytes`` (ticdc's MaxBatchedBytes, which the Kafka
sink sets to it).
"""

from __future__ import annotations

import struct

from tisink.codec.message import Record
from tisink.core.framing import RECORD_OVERHEAD

BATCH_VERSION = 1
VERSION_HEAD = struct.pack(">Q", BATCH_VERSION)
LENGTH = struct.Struct(">Q")
SMALL_LENGTHS = tuple(LENGTH.pack(n) for n in range(4096))
"""The length prefixes of most events, made once: indexing beats packing."""
LENGTH_BYTES = 8
MESSAGE_OVERHEAD = len(VERSION_HEAD) + RECORD_OVERHEAD
"""A message's ``Length()`` before its first event: the version head and the record overhead."""
SINGLE_EVENT_OVERHEAD = RECORD_OVERHEAD + 2 * LENGTH_BYTES + len(VERSION_HEAD)
"""What ticdc adds to an event's key and value before checking it alone against
``max-message-bytes``: the record overhead, both lengths and the version head."""


def single(key: bytes, value: bytes) -> tuple[bytes, bytes]:
    """One event framed alone: DDLs, resolved events and claim-check payloads."""
    pack = LENGTH.pack
    return VERSION_HEAD + pack(len(key)) + key, pack(len(value)) + value


def pack(
    keys: list[bytes], values: list[bytes], max_message_bytes: int, max_batch_size: int
) -> tuple[list[Record], int]:
    """The events ``zip(keys, values)`` packed into messages where ticdc would cut them, and
    the bytes of those messages."""
    records: list[Record] = []
    size = 0
    small, length_of = SMALL_LENGTHS, LENGTH.pack
    count = len(keys)
    start = 0
    while start < count:
        length = len(VERSION_HEAD) + RECORD_OVERHEAD
        end = start
        while end < count and end - start < max_batch_size:
            added = len(keys[end]) + len(values[end]) + 2 * LENGTH_BYTES
            if end > start and length + added > max_message_bytes:
                break
            length += added
            end += 1
        key_parts = [VERSION_HEAD]
        value_parts: list[bytes] = []
        for index in range(start, end):
            key, value = keys[index], values[index]
            size_key, size_value = len(key), len(value)
            key_parts += (small[size_key] if size_key < 4096 else length_of(size_key), key)
            value_parts += (
                small[size_value] if size_value < 4096 else length_of(size_value),
                value,
            )
        record_key, record_value = b"".join(key_parts), b"".join(value_parts)
        records.append((record_key, record_value))
        size += len(record_key) + len(record_value)
        start = end
    return records, size
