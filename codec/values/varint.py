"""Base-128 varints, 14 bits per table lookup: the DTS wire formats' and TiDB's binary JSON's.

Protobuf writes its integers as varints and Avro its longs as varints of the zigzag value, so
one table serves both; TiDB's binary JSON prefixes strings with the same varint of the length.
DTS records carry large numbers that change with every transaction (a seqId is about 60 bits,
a millisecond time 42): a byte-by-byte loop takes nine turns for one, two tables of 2**14
entries take four lookups.
"""

from __future__ import annotations

SHORT_LIMIT = 1 << 14
SHORT_VARINTS: tuple[bytes, ...] = tuple(
    bytes((n,)) if n < 0x80 else bytes(((n & 0x7F) | 0x80, n >> 7)) for n in range(SHORT_LIMIT)
)
"""Varints of 0 .. 2**14-1: every length of a row, a header or a column value up to 16 KiB."""
_CHUNK: tuple[bytes, ...] = tuple(
    bytes(((n & 0x7F) | 0x80, (n >> 7) | 0x80)) for n in range(SHORT_LIMIT)
)
"""14 low bits of a longer varint: two bytes, both with the continuation bit."""
_CHUNK_MASK = SHORT_LIMIT - 1
_UINT64_MASK = (1 << 64) - 1


def varint(n: int) -> bytes:
    """The varint of ``n``; a negative ``n`` as its 64-bit two's complement (Protobuf's int32
    and int64), as is any ``n`` of more than 64 bits (Protobuf keeps the low 64)."""
    if 0 <= n < SHORT_LIMIT:
        return SHORT_VARINTS[n]
    n &= _UINT64_MASK
    low = _CHUNK[n & _CHUNK_MASK]
    if n < 1 << 28:
        return low + SHORT_VARINTS[n >> 14]
    if n < 1 << 42:
        return low + _CHUNK[n >> 14 & _CHUNK_MASK] + SHORT_VARINTS[n >> 28]
    middle = _CHUNK[n >> 14 & _CHUNK_MASK] + _CHUNK[n >> 28 & _CHUNK_MASK]
    if n < 1 << 56:
        return low + middle + SHORT_VARINTS[n >> 42]
    return low + middle + _CHUNK[n >> 42 & _CHUNK_MASK] + SHORT_VARINTS[n >> 56]
