"""TiDB's binary JSON (``pkg/types/json_binary.go``): how row format v2 stores a JSON column,
so the raw-bytes checksum (V2) of a row with one can be computed from the feed's JSON value.

A document is a type byte and a value (all numbers little-endian):

- object: element count (u32), total size (u32), one key entry per member (key offset u32,
  key length u16), one value entry per member, the keys, then the values; members sorted by
  key, bytewise (Go ``cmp.Compare`` of the UTF-8 bytes); a duplicated key keeps its last value;
- array: count, size, one value entry per element, then the values;
- a value entry is the value's type byte and a u32: the literal itself for null/true/false
  (TiDB inlines nothing else, unlike MySQL's small ints), else the value's offset from the
  start of the enclosing object or array;
- literal: one byte (0 null, 1 true, 2 false); int64, uint64, float64: 8 bytes; string: its
  UTF-8 length as a uvarint and the bytes; opaque: a MySQL type byte, uvarint length, bytes;
  date/datetime/timestamp: the packed time (u64); time: nanoseconds (i64) and the fsp (u32).

A number is typed as TiDB's parser types the text: an integer in int64 range is int64, a larger
one up to 2**64-1 uint64, anything else float64. The feed's JSON values are parsed JSON, so
opaque and temporal members (made by CASTs inside TiDB, printed as strings) cannot be told
from strings there; ``JSONOpaque``, ``JSONTime`` and ``JSONDuration`` give them to a caller
that knows.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tisink.codec.errors import CodecError
from tisink.codec.values.varint import varint

TYPE_OBJECT = 0x01
TYPE_ARRAY = 0x03
TYPE_LITERAL = 0x04
TYPE_INT64 = 0x09
TYPE_UINT64 = 0x0A
TYPE_FLOAT64 = 0x0B
TYPE_STRING = 0x0C
TYPE_OPAQUE = 0x0D
TYPE_DATE = 0x0E
TYPE_DATETIME = 0x0F
TYPE_TIMESTAMP = 0x10
TYPE_DURATION = 0x11

LITERAL_NULL = 0x00
LITERAL_TRUE = 0x01
LITERAL_FALSE = 0x02

MAX_DEPTH = 100
"""TiDB refuses a document nested deeper (``maxJSONDepth``): no stored value is."""

_HEADER = 8  # element count + size
_KEY_ENTRY = 6  # key offset (u32) + key length (u16)
_VALUE_ENTRY = 5  # type byte + offset or inlined literal (u32)
_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(1 << 63), (1 << 63) - 1, (1 << 64) - 1
_U32 = struct.Struct("<I")
_U16 = struct.Struct("<H")
_I64 = struct.Struct("<q")
_U64 = struct.Struct("<Q")
_F64 = struct.Struct("<d")


@dataclass(frozen=True, slots=True)
class JSONOpaque:
    """An opaque JSON value (``CAST(binary AS JSON)``): a MySQL type byte and raw bytes."""

    mysql_type: int
    data: bytes


@dataclass(frozen=True, slots=True)
class JSONTime:
    """A DATE/DATETIME/TIMESTAMP held in JSON: the type code and ``Time.ToPackedUint``."""

    type_code: int
    packed: int


@dataclass(frozen=True, slots=True)
class JSONDuration:
    """A TIME held in JSON: its nanoseconds and fsp."""

    nanos: int
    fsp: int


def json_binary(value: Any) -> bytes:
    """The bytes row format v2 keeps for a JSON column holding ``value``: type byte + value."""
    type_code, body = _encode(value, 0)
    return bytes((type_code,)) + body


def _utf8(text: str) -> bytes:
    """Go's decoder turns a lone surrogate escape into U+FFFD; Python keeps it, so do as Go."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        fixed = "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)
        return fixed.encode("utf-8")


def _number(value: int | float) -> tuple[int, bytes]:
    if isinstance(value, int):
        if _INT64_MIN <= value <= _INT64_MAX:
            return TYPE_INT64, _I64.pack(value)
        if 0 <= value <= _UINT64_MAX:
            return TYPE_UINT64, _U64.pack(value)
        value = float(value)  # TiDB's parser: neither int64 nor uint64, so float64
    if math.isnan(value) or math.isinf(value):
        raise CodecError(f"JSON value {value!r} is not representable")
    return TYPE_FLOAT64, _F64.pack(value)


def _encode(value: Any, depth: int) -> tuple[int, bytes]:
    if depth > MAX_DEPTH:
        raise CodecError(f"JSON document nested deeper than {MAX_DEPTH}")
    if value is None:
        return TYPE_LITERAL, bytes((LITERAL_NULL,))
    if value is True:
        return TYPE_LITERAL, bytes((LITERAL_TRUE,))
    if value is False:
        return TYPE_LITERAL, bytes((LITERAL_FALSE,))
    if isinstance(value, int | float):
        return _number(value)
    if isinstance(value, str):
        data = _utf8(value)
        return TYPE_STRING, varint(len(data)) + data
    if isinstance(value, Mapping):
        return TYPE_OBJECT, _object(value, depth)
    if isinstance(value, list | tuple):
        return TYPE_ARRAY, _container([], list(value), depth)
    if isinstance(value, JSONOpaque):
        return TYPE_OPAQUE, bytes((value.mysql_type,)) + varint(len(value.data)) + value.data
    if isinstance(value, JSONTime):
        if value.type_code not in (TYPE_DATE, TYPE_DATETIME, TYPE_TIMESTAMP):
            raise CodecError(f"JSON time type code {value.type_code:#x} is not a time type")
        return value.type_code, _U64.pack(value.packed)
    if isinstance(value, JSONDuration):
        return TYPE_DURATION, _I64.pack(value.nanos) + _U32.pack(value.fsp)
    raise CodecError(f"unsupported JSON value of type {type(value).__name__}")


def _object(members: Mapping[Any, Any], depth: int) -> bytes:
    """Keys as UTF-8 bytes, later duplicates (after Go's U+FFFD repair) replacing earlier ones,
    sorted bytewise as TiDB's ``appendBinaryObject`` sorts them."""
    by_key: dict[bytes, Any] = {}
    for key, item in members.items():
        if not isinstance(key, str):
            raise CodecError(f"JSON object key {key!r} is not a string")
        raw = _utf8(key)
        if len(raw) > 0xFFFF:
            raise CodecError("TiDB does not support JSON object keys of 65536 bytes or more")
        by_key.pop(raw, None)
        by_key[raw] = item
    keys = sorted(by_key)
    return _container(keys, [by_key[k] for k in keys], depth)


def _container(keys: list[bytes], items: list[Any], depth: int) -> bytes:
    """An object (``keys`` given) or array: header, key entries, value entries, keys, values."""
    count = len(items)
    entries_end = _HEADER + count * (_KEY_ENTRY if keys else 0) + count * _VALUE_ENTRY
    key_entries = bytearray()
    tail = bytearray()
    for key in keys:
        key_entries += _U32.pack(entries_end + len(tail)) + _U16.pack(len(key))
        tail += key
    value_entries = bytearray()
    for item in items:
        type_code, body = _encode(item, depth + 1)
        if type_code == TYPE_LITERAL:
            value_entries += bytes((TYPE_LITERAL, body[0], 0, 0, 0))
        else:
            value_entries.append(type_code)
            value_entries += _U32.pack(entries_end + len(tail))
            tail += body
    size = entries_end + len(tail)
    if size > 0xFFFFFFFF:
        raise CodecError("JSON document larger than 4 GiB")
    return _U32.pack(count) + _U32.pack(size) + key_entries + value_entries + tail
