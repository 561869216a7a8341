"""Column values of Debezium payloads (TiCDC ``writeDebeziumFieldValue``, spec/debezium.md 2).

``converter_for`` gives, once per column, the function from a non-NULL feed value to what
orjson writes for it (int, str, bool or an orjson Fragment); NULLs are ``nulls``' business. A bad
value raises one of ``codec.values.checks.VALUE_ERRORS``; the row renderer turns it into a
CodecError naming the table and the column.
"""

from __future__ import annotations

import binascii
from collections.abc import Callable
from typing import Any

from tisink.codec.debezium import temporal
from tisink.codec.debezium.jsonwriter import double, single
from tisink.codec.errors import CodecError
from tisink.codec.values import binary_bytes, json_text, set_names, vector_text
from tisink.codec.values.checks import as_number, as_text
from tisink.model.mysqltypes import INTEGER_RANGES, TypeFamily
from tisink.model.table import ColumnInfo

Converter = Callable[[Any], Any]

"""What a bad row value raises inside a converter."""

_INT64_LIMIT = 1 << 63
_UINT64 = 1 << 64


def _integer(column: ColumnInfo) -> Converter:
    """In-range values as they are; out-of-range ones as -1 (v8.5.5+). BIGINT UNSIGNED wraps to
    int64 as Go's ``int64(v)``, its maximum being -1 either way."""
    signed_min, signed_max, unsigned_max = INTEGER_RANGES[column.mysql_type]
    low, high = (0, unsigned_max) if column.unsigned else (signed_min, signed_max)
    wraps = column.unsigned and column.mysql_type == "bigint"

    def convert(v: Any) -> int:
        if type(v) is not int:
            raise TypeError(f"want an integer, got {type(v).__name__}")
        if not low <= v <= high:
            return -1
        return v - _UINT64 if wraps and v >= _INT64_LIMIT else v

    return convert


def _decimal(v: Any) -> Any:
    """DECIMAL as float64 (``MyDecimal.ToFloat64`` parses the decimal text)."""
    return double(float(as_text(v)))


def _binary(column: ColumnInfo) -> Converter:
    def convert(v: Any) -> str:
        return binascii.b2a_base64(binary_bytes(column, as_text(v)), newline=False).decode()

    return convert


def _bit(column: ColumnInfo) -> Converter:
    """BIT(1) as a boolean; BIT(n) as the little-endian bytes of the value, ceil(n/8) long."""
    width = column.length or 1
    if width == 1:
        return lambda v: _bit_number(v) != 0
    size = (width + 7) // 8

    def convert(v: Any) -> str:
        raw = (_bit_number(v) & (_UINT64 - 1)).to_bytes(8, "little")[:size]
        return binascii.b2a_base64(raw, newline=False).decode()

    return convert


def _bit_number(v: Any) -> int:
    if type(v) is not int or v < 0:
        raise ValueError(f"want an unsigned integer, got {v!r}")
    return v


def _enum(column: ColumnInfo) -> Converter:
    """The member's name; "" (MySQL's error member) stays ""."""
    names = {name: name for name in column.elements}
    names[""] = ""
    return names.__getitem__


def _date(column: ColumnInfo) -> Converter:
    invalid = 0 if not column.nullable else None

    def convert(v: Any) -> int | None:
        days = temporal.date_days(as_text(v))
        return invalid if days is None else days

    return convert


def _datetime(column: ColumnInfo) -> Converter:
    invalid = 0 if not column.nullable else None
    fsp = column.decimal

    def convert(v: Any) -> int | None:
        value = temporal.datetime_value(as_text(v), fsp)
        return invalid if value is None else value

    return convert


def _timestamp(column: ColumnInfo) -> Converter:
    """Feed TIMESTAMPs are UTC already: TiCDC's round trip through the changefeed zone and back
    to UTC leaves the instant as it is. Below MinTimestamp (the zero value): the epoch."""
    fsp = column.decimal

    def convert(v: Any) -> str:
        return temporal.zoned_timestamp(as_text(v), fsp) or temporal.ZERO_ZONED

    return convert


def _json(v: Any) -> str:
    return json_text(v)


def _vector(v: Any) -> str:
    if type(v) is not list:
        raise TypeError(f"want a list of numbers, got {type(v).__name__}")
    return vector_text([as_number(x) for x in v])


def converter_for(column: ColumnInfo) -> Converter:
    """The function from a non-NULL feed value of ``column`` to its payload value."""
    family = column.family
    if family in (TypeFamily.INT, TypeFamily.BIGINT):
        return _integer(column)
    if family is TypeFamily.YEAR:
        return _year
    if family is TypeFamily.FLOAT:
        return lambda v: single(as_number(v))
    if family is TypeFamily.DOUBLE:
        return lambda v: double(as_number(v))
    if family is TypeFamily.DECIMAL:
        return _decimal
    if family is TypeFamily.STRING:
        return as_text
    if family is TypeFamily.BINARY:
        return _binary(column)
    if family is TypeFamily.BIT:
        return _bit(column)
    if family is TypeFamily.ENUM:
        return _enum(column)
    if family is TypeFamily.SET:
        return set_names(column)
    if family is TypeFamily.DATE:
        return _date(column)
    if family is TypeFamily.DATETIME:
        return _datetime(column)
    if family is TypeFamily.TIMESTAMP:
        return _timestamp(column)
    if family is TypeFamily.TIME:
        return lambda v: temporal.time_micros(as_text(v))
    if family is TypeFamily.JSON:
        return _json
    if family is TypeFamily.VECTOR:
        return _vector
    raise CodecError(f"column {column.name!r}: no Debezium rendering for {column.mysql_type}")


def _year(v: Any) -> int:
    if type(v) is not int:
        raise TypeError(f"want an integer, got {type(v).__name__}")
    return v


__all__ = ["Converter", "converter_for"]
