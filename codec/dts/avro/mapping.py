"""The MySQL type -> DTS Avro value mapping shared by Tencent Avro and Alibaba Avro.

Both formats carry a row image as an array of the same value union (Tencent's demo borrows
Alibaba's value records), so one table decides, per column, which record a value becomes, its
``dataTypeNumber`` and the record's constant fields (seeds/003 type table, spec/dts-formats.md
3.3 and 4.3-4.4). ``convert`` turns a feed value (spec/feed-format.md) into the record's
variable part; the byte writers (``columns``) and the generic datums (``native``) both use it,
so the bytes and fastavro's output can only differ in the encoding itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from tisink.codec.dts.avro.convert import (
    charset_encoder,
    enum_text,
    float32_value,
    integer_text,
    text_value,
)
from tisink.codec.dts.avro.temporal import (
    date_parts,
    datetime_parts,
    time_parts,
    timestamp_parts,
    year_parts,
)
from tisink.codec.dts.mysql_codes import type_code
from tisink.codec.values import binary_bytes, json_text, set_names, vector_text
from tisink.model.mysqltypes import DEFAULT_LENGTH, TypeFamily
from tisink.model.table import ColumnInfo


class ValueType(StrEnum):
    """The value records a TiDB column can become (the other four serve other engines)."""

    INTEGER = "Integer"
    CHARACTER = "Character"
    DECIMAL = "Decimal"
    FLOAT = "Float"
    TIMESTAMP = "Timestamp"
    DATETIME = "DateTime"
    BINARY_OBJECT = "BinaryObject"
    TEXT_OBJECT = "TextObject"


VALUE_UNION: tuple[str, ...] = (
    "null",
    "Integer",
    "Character",
    "Decimal",
    "Float",
    "Timestamp",
    "DateTime",
    "TimestampWithTimeZone",
    "BinaryGeometry",
    "TextGeometry",
    "BinaryObject",
    "TextObject",
    "EmptyObject",
)
"""The image item union in branch order: Decimal before Float, whatever the definitions say."""

BRANCH: dict[str, int] = {name: index for index, name in enumerate(VALUE_UNION)}


@dataclass(frozen=True, slots=True)
class ValueMapping:
    """How one column's values are written.

    ``constants`` are the record's fields that are the same for every value of the column:
    ``(precision,)`` for Integer, ``(charset,)`` for Character, ``(precision, scale)`` for
    Decimal and Float, ``(type label,)`` for BinaryObject and TextObject, ``()`` otherwise.
    ``convert`` gives the rest: the value text, bytes or double, Timestamp's ``(seconds,
    micros)``, DateTime's seven optional segments.
    """

    value_type: ValueType
    type_code: int
    constants: tuple[Any, ...]
    convert: Callable[[Any], Any]


def _display_width(column: ColumnInfo) -> int:
    return column.length or DEFAULT_LENGTH.get((column.mysql_type, column.unsigned), 0)


def value_mapping(column: ColumnInfo) -> ValueMapping:
    """The mapping of one column; built once per table version."""
    family = column.family
    code = type_code(column)
    if family in (TypeFamily.INT, TypeFamily.BIGINT):
        return ValueMapping(ValueType.INTEGER, code, (_display_width(column),), integer_text)
    if family is TypeFamily.BIT:
        return ValueMapping(ValueType.INTEGER, code, (column.length or 1,), integer_text)
    if family in (TypeFamily.FLOAT, TypeFamily.DOUBLE):
        convert = float32_value if family is TypeFamily.FLOAT else float
        return ValueMapping(
            ValueType.FLOAT, code, (_display_width(column), column.decimal), convert
        )
    if family is TypeFamily.DECIMAL:
        precision = column.length or DEFAULT_LENGTH[("decimal", False)]
        return ValueMapping(ValueType.DECIMAL, code, (precision, column.decimal), text_value)
    if family is TypeFamily.STRING:
        return ValueMapping(
            ValueType.CHARACTER, code, (column.charset,), charset_encoder(column.charset)
        )
    if family is TypeFamily.BINARY:
        label = "BINARY" if column.mysql_type in ("binary", "varbinary") else "BLOB"
        return ValueMapping(
            ValueType.BINARY_OBJECT, code, (label,), lambda value: binary_bytes(column, value)
        )
    if family is TypeFamily.TIMESTAMP:
        return ValueMapping(ValueType.TIMESTAMP, code, (), timestamp_parts)
    if family is TypeFamily.DATE:
        return ValueMapping(ValueType.DATETIME, code, (), date_parts)
    if family in (TypeFamily.DATETIME, TypeFamily.TIME):
        parts = datetime_parts if family is TypeFamily.DATETIME else time_parts
        fsp = column.decimal
        return ValueMapping(ValueType.DATETIME, code, (), lambda value: parts(value, fsp))
    if family is TypeFamily.YEAR:
        return ValueMapping(ValueType.DATETIME, code, (), year_parts)
    if family is TypeFamily.ENUM:
        return ValueMapping(ValueType.TEXT_OBJECT, code, ("ENUM",), enum_text(column))
    if family is TypeFamily.SET:
        return ValueMapping(ValueType.TEXT_OBJECT, code, ("SET",), set_names(column))
    if family is TypeFamily.JSON:
        return ValueMapping(ValueType.TEXT_OBJECT, code, ("JSON",), json_text)
    if family is TypeFamily.VECTOR:
        return ValueMapping(ValueType.TEXT_OBJECT, code, ("VECTOR",), vector_text)
    raise AssertionError(f"unhandled type family {family}")  # every family is listed above
