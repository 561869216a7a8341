"""Per-column writers for the ``data``/``old`` maps of an Avro DML (spec 3.3, ticdc branches).

The map value is the union ``[null, long, float, double, string, bytes, Timestamp,
UnsignedBigint]``. For each column we precompute, once per table version, the map key followed
by the null branch (the whole entry of a NULL) and the map key followed by the column's fixed
branch, so a row costs one dict lookup and one value encoding per column.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from tisink.codec.simple.avro.wire import (
    as_int64,
    double_bytes,
    float_bytes,
    long_bytes,
    raw_bytes,
    str_bytes,
)
from tisink.codec.values import (
    binary_bytes,
    enum_index,
    json_text,
    set_bitmask,
    timestamp_text,
    vector_text,
)
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo

BRANCH_NULL = b"\x00"
BRANCH_LONG = b"\x02"
BRANCH_FLOAT = b"\x04"
BRANCH_DOUBLE = b"\x06"
BRANCH_STRING = b"\x08"
BRANCH_BYTES = b"\x0a"
BRANCH_TIMESTAMP = b"\x0c"
BRANCH_UNSIGNED_BIGINT = b"\x0e"

ValueWriter = Callable[[Any], bytes]
ColumnWriter = tuple[str, bytes, bytes, ValueWriter]
"""(column name, key + null branch, key + value branch, value -> encoded value)."""


def _text_writer(render: Callable[[Any], str]) -> ValueWriter:
    def write(value: Any) -> bytes:
        return str_bytes(render(value))

    return write


def unsigned_bigint(value: int) -> bytes:
    if value < 0:
        raise OverflowError(f"{value} is negative for bigint unsigned")
    return long_bytes(as_int64(value))


def _bit(value: int) -> bytes:
    if value < 0:
        raise OverflowError(f"{value} is negative for bit")
    return str_bytes(str(value))


def _bit_long(value: int) -> bytes:
    if value < 0:
        raise OverflowError(f"{value} is negative for bit")
    return long_bytes(as_int64(value))


def value_writer(
    column: ColumnInfo, zone: tuple[str, datetime.tzinfo], newarch: bool = True
) -> tuple[bytes, ValueWriter]:
    """The union branch (plus any constant part of the value) and the writer for the rest."""
    family = column.family
    if family is TypeFamily.BIGINT and column.unsigned:
        return BRANCH_UNSIGNED_BIGINT, unsigned_bigint
    if family in (TypeFamily.INT, TypeFamily.BIGINT, TypeFamily.YEAR):
        return BRANCH_LONG, long_bytes
    if family is TypeFamily.FLOAT:
        return BRANCH_FLOAT, float_bytes
    if family is TypeFamily.DOUBLE:
        return BRANCH_DOUBLE, double_bytes
    if family in (
        TypeFamily.STRING,
        TypeFamily.DECIMAL,
        TypeFamily.DATE,
        TypeFamily.DATETIME,
        TypeFamily.TIME,
    ):
        return BRANCH_STRING, str_bytes
    if family is TypeFamily.BINARY:
        return BRANCH_BYTES, lambda value: raw_bytes(binary_bytes(column, value))
    if family is TypeFamily.TIMESTAMP:
        # Timestamp record: location (constant per marshaller), then the value in that zone.
        location, tz = zone
        return BRANCH_TIMESTAMP + str_bytes(location), _text_writer(
            lambda value: timestamp_text(value, tz)
        )
    if family is TypeFamily.ENUM:
        return BRANCH_LONG, lambda value: long_bytes(enum_index(column, value))
    if family is TypeFamily.SET:
        return BRANCH_LONG, lambda value: long_bytes(set_bitmask(column, value))
    if family is TypeFamily.BIT:
        # ticdc writes BIT as the decimal text of its unsigned value; tiflow a long (its
        # ``encodeValue4Avro`` takes the mounter's uint64 as ``int64(v)``).
        return (BRANCH_STRING, _bit) if newarch else (BRANCH_LONG, _bit_long)
    if family is TypeFamily.JSON:
        return BRANCH_STRING, _text_writer(json_text)
    if family is TypeFamily.VECTOR:
        return BRANCH_STRING, _text_writer(vector_text)
    raise AssertionError(f"unhandled type family {family}")  # every family is listed above


def column_writer(
    column: ColumnInfo, zone: tuple[str, datetime.tzinfo], newarch: bool = True
) -> ColumnWriter:
    key = str_bytes(column.name)
    prefix, write = value_writer(column, zone, newarch)
    return column.name, key + BRANCH_NULL, key + prefix, write
