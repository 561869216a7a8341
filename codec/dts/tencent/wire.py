"""Protobuf wire encoding, just the parts ``subscribe.proto`` uses: varints and length-delimited
fields, all with field numbers below 16 so every tag is one byte.

Written by hand rather than through the ``protobuf`` runtime: the encoder glues precomputed byte
strings together (a column's tag, type and length prefix are the same for every row), which
building message objects cannot do, and tisink then needs no protobuf package at run time.
"""

from __future__ import annotations

from tisink.codec.values.varint import SHORT_LIMIT, SHORT_VARINTS, varint

VARINT = 0
LEN = 2

_UINT64_MASK = (1 << 64) - 1


def tag(field: int, wire_type: int) -> bytes:
    """The one-byte key of ``field`` (1..15)."""
    return bytes(((field << 3) | wire_type,))


def length_varint(n: int) -> bytes:
    """``varint`` of a length (never negative), a tuple lookup for the usual sizes."""
    return SHORT_VARINTS[n] if n < SHORT_LIMIT else varint(n)


def varint_run(first: int, count: int) -> list[bytes]:
    """Varints of ``first .. first+count-1``: consecutive numbers mostly differ in the first
    byte alone, so the long ones (seqIds) are encoded once and patched."""
    encoded = varint(first)
    low = encoded[0] & 0x7F if len(encoded) > 1 else 128
    rest = encoded[1:]
    out = [encoded]
    for step in range(1, count):
        if low + step < 128:
            out.append(_ONE_BYTE_HIGH[low + step] + rest)
        else:
            out.append(varint(first + step))
    return out


_ONE_BYTE_HIGH = tuple(bytes((n | 0x80,)) for n in range(128))


def field_varint(field: int, n: int) -> bytes:
    """A varint field, written even when ``n`` is 0 (callers omit defaults themselves)."""
    return tag(field, VARINT) + varint(n)


_LEN_TAGS = tuple(bytes(((field << 3) | LEN,)) for field in range(16))


def field_bytes(field: int, payload: bytes) -> bytes:
    """A length-delimited field: string, bytes or an embedded message."""
    return _LEN_TAGS[field] + varint(len(payload)) + payload


def field_text(field: int, text: str) -> bytes:
    """A string field; empty strings are left out, as proto3 serialisers do."""
    return field_bytes(field, text.encode()) if text else b""


class Reader:
    """Walks the fields of one serialised message: ``(field, wire_type, value)`` where value is
    an int for varints and bytes for length-delimited fields. Raises ValueError on bad input
    (truncation, wire types this schema never uses)."""

    __slots__ = ("data", "end", "pos")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0
        self.end = len(data)

    def __iter__(self) -> Reader:
        return self

    def _varint(self) -> int:
        data, pos, shift, result = self.data, self.pos, 0, 0
        while True:
            if pos >= self.end:
                raise ValueError("truncated varint")
            byte = data[pos]
            pos += 1
            result |= (byte & 0x7F) << shift
            if byte < 0x80:
                break
            shift += 7
            if shift > 63:
                raise ValueError("varint longer than 10 bytes")
        self.pos = pos
        return result & _UINT64_MASK

    def __next__(self) -> tuple[int, int, int | bytes]:
        if self.pos >= self.end:
            raise StopIteration
        key = self._varint()
        field, wire_type = key >> 3, key & 7
        if field == 0:
            raise ValueError("field number 0")
        if wire_type == VARINT:
            return field, wire_type, self._varint()
        if wire_type == LEN:
            size = self._varint()
            start = self.pos
            if start + size > self.end:
                raise ValueError(f"field {field}: {size} bytes announced, {self.end - start} left")
            self.pos = start + size
            return field, wire_type, self.data[start : self.pos]
        raise ValueError(f"field {field}: unexpected wire type {wire_type}")


def signed64(n: int) -> int:
    """An int32/int64 varint read back as a signed number."""
    return n - (1 << 64) if n >= 1 << 63 else n
