"""Open Protocol framing: events packed into batched messages (ticdc ``open/encoder.go``).

A message's key stream is the 8-byte big-endian batch version (1), then per event an 8-byte
big-endian length and the key JSON; its value stream holds per event an 8-byte length and the
value bytes. An event starts a new message when the current one holds ``max-batch-size`` events
or when its ``Length()`` (key + value + the 36-byte record overhead) plus the event's key, value
and 16 length bytes would pass ``max-message-bytes`` (ticdc's MaxBatchedBytes, which the Kafka
sink sets to it). ``OpenEncoder.encode_rows`` cuts the messages in one pass over the rows.
"""

from __future__ import annotations

import struct

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
