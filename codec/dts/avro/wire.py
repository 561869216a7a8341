"""Avro binary pieces tuned for DTS records, on top of the Simple codec's primitives.

DTS records are mostly short strings (column values, positions) and a few large longs that
change little from one record to the next (the record id). ``text_bytes``/``blob_bytes`` save the
general varint for lengths under 64; ``RecordIds`` re-encodes only the low 7 bits of an id whose
higher bits repeat, which they do for the records of one transaction.
"""

from __future__ import annotations

from tisink.codec.simple.avro.wire import bool_bytes, double_bytes, long_bytes, str_bytes

__all__ = [
    "RecordIds",
    "blob_bytes",
    "bool_bytes",
    "double_bytes",
    "long_bytes",
    "str_bytes",
    "text_bytes",
]

_SHORT_LENGTH = 64
_LENGTHS: tuple[bytes, ...] = tuple(long_bytes(n) for n in range(_SHORT_LENGTH))
_LOW_GROUPS: tuple[bytes, ...] = tuple(bytes((group | 0x80,)) for group in range(0x80))


def blob_bytes(raw: bytes) -> bytes:
    """An Avro ``bytes`` (or ``string`` already encoded): length, then the bytes."""
    size = len(raw)
    return (_LENGTHS[size] if size < _SHORT_LENGTH else long_bytes(size)) + raw


def text_bytes(text: str) -> bytes:
    """An Avro ``string`` (UTF-8)."""
    raw = text.encode()
    size = len(raw)
    return (_LENGTHS[size] if size < _SHORT_LENGTH else long_bytes(size)) + raw


class RecordIds:
    """``long_bytes`` for non-negative longs, caching the encoding of all but the lowest 7 bits
    of the zigzag value: consecutive ids share it 63 times out of 64."""

    __slots__ = ("_high", "_high_value")

    def __init__(self) -> None:
        self._high_value = -1
        self._high = b""

    def __call__(self, n: int) -> bytes:
        zigzag = n << 1
        if zigzag < 0x80 or n < 0:
            return long_bytes(n)
        high = zigzag >> 7
        if high != self._high_value:
            self._high = _unsigned_varint(high)
            self._high_value = high
        return _LOW_GROUPS[zigzag & 0x7F] + self._high


def _unsigned_varint(value: int) -> bytes:
    """The base-128 varint of a non-negative value (no zigzag), via the table-driven
    ``long_bytes``: ``long_bytes(m)`` is the varint of ``2m``, and an odd value differs from
    the even one below it only in the lowest bit of its first byte."""
    raw = long_bytes(value >> 1)
    return bytes((raw[0] + 1,)) + raw[1:] if value & 1 else raw
