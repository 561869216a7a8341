"""Avro binary pieces tuned for DTS records, on top of the Simple codec's primitives.

DTS records are mostly short strings (column values, positions) and a few large longs that
change little from one record to the next (the record id). ``text_bytes``/``blob_bytes`` save the
general varint for lengths under 64; ``id_run`` encodes a transaction's ids at once, sharing
all but the first byte.
"""

from __future__ import annotations

from collections.abc import Sequence

from tisink.codec.simple.avro.wire import bool_bytes, double_bytes, long_bytes, str_bytes
from tisink.codec.values.varint import varint

__all__ = [
    "LENGTHS",
    "blob_bytes",
    "bool_bytes",
    "double_bytes",
    "id_run",
    "long_bytes",
    "str_bytes",
    "text_bytes",
    "time_bytes",
]

SHORT_LENGTH = 64
LENGTHS: tuple[bytes, ...] = tuple(long_bytes(n) for n in range(SHORT_LENGTH))
"""``long_bytes`` of the lengths below ``SHORT_LENGTH``."""
_LOW_GROUPS: tuple[bytes, ...] = tuple(bytes((group | 0x80,)) for group in range(0x80))


def blob_bytes(raw: bytes) -> bytes:
    """An Avro ``bytes`` (or ``string`` already encoded): length, then the bytes."""
    size = len(raw)
    return (LENGTHS[size] if size < SHORT_LENGTH else long_bytes(size)) + raw


def text_bytes(text: str) -> bytes:
    """An Avro ``string`` (UTF-8)."""
    raw = text.encode()
    size = len(raw)
    return (LENGTHS[size] if size < SHORT_LENGTH else long_bytes(size)) + raw


def id_run(first: int, count: int) -> tuple[Sequence[bytes], bytes]:
    """``long_bytes`` of the record ids ``first .. first+count-1`` (``first`` >= 0) as
    ``(heads, rest)``: id ``first + k`` is ``heads[k] + rest``. Consecutive ids differ only in
    the first byte while the low 7 bits of the zigzag value do not carry (63 ids in 64), so
    ``rest`` is encoded once and the heads are a slice of a table."""
    zigzag = first << 1
    low = zigzag & 0x7F
    if zigzag >= 0x80 and low + 2 * count <= 0x80:
        return _LOW_GROUPS[low : low + 2 * count : 2], varint(zigzag >> 7)
    return [long_bytes(n) if n < 64 else _id_bytes(n) for n in range(first, first + count)], b""


def _id_bytes(n: int) -> bytes:
    """``long_bytes(n)`` for n >= 64, past int64 too: ids from 2**63 (commit ts after mid
    2037) are written as the varint of ``2n``, as they always were, not refused."""
    zigzag = n << 1
    return _LOW_GROUPS[zigzag & 0x7F] + varint(zigzag >> 7)


def time_bytes(value: int) -> bytes:
    """``long_bytes`` of a time (a count of milliseconds or seconds, never past int64): the
    zigzag value of a non-negative one is just twice it."""
    return varint(value << 1) if value >= 0 else long_bytes(value)
