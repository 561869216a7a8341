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
LENGTH_BYTES = 8
SINGLE_EVENT_OVERHEAD = RECORD_OVERHEAD + 2 * LENGTH_BYTES + len(VERSION_HEAD)
"""What ticdc adds to an event's key and value before checking it alone against
``max-message-bytes``: the record overhead, both lengths and the version head."""


def single(key: bytes, value: bytes) -> tuple[bytes, bytes]:
    """One event framed alone: DDLs, resolved events and claim-check payloads."""
    pack = LENGTH.pack
    return VERSION_HEAD + pack(len(key)) + key, pack(len(value)) + value


class Batcher:
    """Packs events into messages; ``records`` holds the finished ones, ``size`` their bytes."""

    __slots__ = (
        "_count",
        "_keys",
        "_length",
        "_limit",
        "_max_events",
        "_values",
        "records",
        "size",
    )

    def __init__(self, max_message_bytes: int, max_batch_size: int) -> None:
        self._limit = max_message_bytes
        self._max_events = max_batch_size
        self._keys: list[bytes] = []
        self._values: list[bytes] = []
        self._count = 0
        self._length = 0
        self.records: list[Record] = []
        self.size = 0

    def add(self, key: bytes, value: bytes) -> None:
        """Append one event, starting a new message where ticdc would."""
        added = len(key) + len(value) + 2 * LENGTH_BYTES
        if not self._count or self._count >= self._max_events or self._length + added > self._limit:
            self.flush()
            self._keys.append(VERSION_HEAD)
            self._length = len(VERSION_HEAD) + RECORD_OVERHEAD
        pack = LENGTH.pack
        self._keys += (pack(len(key)), key)
        self._values += (pack(len(value)), value)
        self._length += added
        self._count += 1

    def flush(self) -> None:
        """Finish the current message, if any."""
        if not self._count:
            return
        key, value = b"".join(self._keys), b"".join(self._values)
        self.records.append((key, value))
        self.size += len(key) + len(value)
        self._keys.clear()
        self._values.clear()
        self._count = 0
