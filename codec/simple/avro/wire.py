"""Avro binary primitives (spec 1.11 "Binary Encoding"), tuned for the Simple marshaller.

Everything returns ``bytes`` so callers can precompute constant fragments once and join the
parts of a message with a single ``b"".join``. Longs are zigzag varints; strings and bytes are a
long length followed by the raw bytes; floats and doubles are little-endian IEEE 754.
"""

from __future__ import annotations

from struct import Struct

_INT64_MIN = -(1 << 63)
_UINT64_SPAN = 1 << 64
_SMALL_LIMIT = 1 << 14
"""Zigzagged values below this have a precomputed encoding (one or two bytes)."""
_CHUNK_MASK = _SMALL_LIMIT - 1


def _varint(z: int) -> bytes:
    out = bytearray()
    while z >= 0x80:
        out.append((z & 0x7F) | 0x80)
        z >>= 7
    out.append(z)
    return bytes(out)


_SMALL: tuple[bytes, ...] = tuple(_varint(z) for z in range(_SMALL_LIMIT))
_CHUNK: tuple[bytes, ...] = tuple(
    bytes(((z & 0x7F) | 0x80, (z >> 7) | 0x80)) for z in range(_SMALL_LIMIT)
)
"""14 low bits of a longer varint: two bytes, both with the continuation bit set."""


def long_bytes(n: int) -> bytes:
    """An Avro ``long`` (or ``int``): zigzag, then base-128 varint. ``n`` must fit int64."""
    z = (n << 1) ^ (n >> 63)
    if z < _SMALL_LIMIT:
        return _SMALL[z]
    if n > 0x7FFF_FFFF_FFFF_FFFF or n < _INT64_MIN:
        raise OverflowError(f"{n} does not fit an Avro long")
    # 14 bits a chunk, low first, the last one from _SMALL: unrolled for up to 64 bits
    low = _CHUNK[z & _CHUNK_MASK]
    if z < 1 << 28:
        return low + _SMALL[z >> 14]
    if z < 1 << 42:
        return low + _CHUNK[z >> 14 & _CHUNK_MASK] + _SMALL[z >> 28]
    middle = _CHUNK[z >> 14 & _CHUNK_MASK] + _CHUNK[z >> 28 & _CHUNK_MASK]
    if z < 1 << 56:
        return low + middle + _SMALL[z >> 42]
    return low + middle + _CHUNK[z >> 42 & _CHUNK_MASK] + _SMALL[z >> 56]


def as_int64(n: int) -> int:
    """Reinterpret a uint64 (TSO, unsigned bigint) as int64, as Go's ``int64(u)`` does."""
    return n - _UINT64_SPAN if n > 0x7FFF_FFFF_FFFF_FFFF else n


def str_bytes(text: str) -> bytes:
    """An Avro ``string`` from text (UTF-8)."""
    raw = text.encode()
    size = len(raw)
    return (_SMALL[size + size] if size < _SMALL_LIMIT >> 1 else long_bytes(size)) + raw


def raw_bytes(raw: bytes) -> bytes:
    """An Avro ``string`` or ``bytes`` from bytes taken as they are."""
    return long_bytes(len(raw)) + raw


_FLOAT = Struct("<f")
_DOUBLE = Struct("<d")

float_bytes = _FLOAT.pack
"""An Avro ``float``: 4-byte little-endian float32; raises OverflowError out of range."""

double_bytes = _DOUBLE.pack
"""An Avro ``double``: 8-byte little-endian float64."""

TRUE = b"\x01"
FALSE = b"\x00"
NULL_BRANCH = b"\x00"
"""Branch 0 of a ``["null", X]`` union: the whole encoding of a null."""
SECOND_BRANCH = b"\x02"
"""Branch 1 of a ``["null", X]`` union; the value's encoding follows."""
END_OF_BLOCKS = b"\x00"
"""The zero count that ends an array or a map."""


def bool_bytes(flag: bool) -> bytes:
    return TRUE if flag else FALSE


def optional(encoded: bytes | None) -> bytes:
    """A ``["null", X]`` union around an already encoded X (or None)."""
    return NULL_BRANCH if encoded is None else SECOND_BRANCH + encoded


def array_bytes(items: list[bytes]) -> bytes:
    """An Avro array (or map) of already encoded items, written as one block like goavro."""
    if not items:
        return END_OF_BLOCKS
    return long_bytes(len(items)) + b"".join(items) + END_OF_BLOCKS
