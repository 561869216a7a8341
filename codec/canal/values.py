"""Column values as canal-json text (ticdc ``formatColumnValue`` in ``canal/helper.go``).

Every value is a JSON string: integers, YEAR and BIT (as the unsigned number) in decimal; FLOAT
in float32's shortest digits, DOUBLE in float64's; DECIMAL, dates and times as TiDB prints
them; TIMESTAMP in the changefeed's zone; ENUM as its 1-based index and SET as its bitmask, both
in decimal; JSON as TiDB's ``BinaryJSON.String()``; VECTOR as ``[a,b,...]``. Binary columns
(BINARY/VARBINARY/BLOB) are their bytes read as ISO-8859-1, one character per byte, as Canal
does. ``converter_for`` gives the checking form of each rule; the generated renderers inline
the common cases and call these for the rest.
"""

from __future__ import annotations

import datetime
import struct
from collections.abc import Callable
from typing import Any

from tisink.codec.errors import CodecError
from tisink.codec.values import (
    binary_bytes,
    enum_index,
    float32_text,
    float64_text,
    json_text,
    set_bitmask,
    timestamp_texts,
)
from tisink.codec.values.checks import (
    TEXT_FAMILIES,
    as_number,
    as_text,
    bit_text,
    decimal_text,
    integer_text,
    vector_list_text,
)
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo

Converter = Callable[[Any], str]

VALUE_ERRORS = (
    KeyError,
    TypeError,
    ValueError,
    OverflowError,
    AttributeError,
    struct.error,
    CodecError,
)
"""What a bad row image raises inside a converter or a generated renderer."""


def _binary(column: ColumnInfo) -> Converter:
    def convert(v: Any) -> str:
        return binary_bytes(column, as_text(v)).decode("latin-1")

    return convert


def _enum(column: ColumnInfo) -> Converter:
    texts = {"": "0"}
    texts.update((name, str(enum_index(column, name))) for name in column.elements)

    def convert(v: Any) -> str:
        text = texts.get(v) if type(v) is str else None
        return text if text is not None else str(enum_index(column, as_text(v)))

    return convert


def _set(column: ColumnInfo) -> Converter:
    """The bitmask text of a list of member names, with the member bits looked up once (the
    first of a repeated name wins, as TiDB's ``ParseSetValue``); a comma-joined string and the
    error naming a stranger go through ``set_bitmask``."""
    bits = {name: 1 << position for position, name in reversed(list(enumerate(column.elements)))}

    def convert(v: Any) -> str:
        if type(v) is list:
            mask = 0
            try:
                for name in v:
                    mask |= bits[name]
                return str(mask)
            except (KeyError, TypeError):
                pass
        elif type(v) is not str:
            raise TypeError(f"want a list of members, got {type(v).__name__}")
        return str(set_bitmask(column, v))

    return convert


def converter_for(column: ColumnInfo, tz: datetime.tzinfo) -> Converter:
    """The function from a non-NULL feed value of ``column`` to its canal-json text."""
    family = column.family
    if family in (TypeFamily.INT, TypeFamily.BIGINT, TypeFamily.YEAR):
        return integer_text
    if family is TypeFamily.BIT:
        return bit_text
    if family is TypeFamily.FLOAT:
        return lambda v: float32_text(as_number(v))
    if family is TypeFamily.DOUBLE:
        return lambda v: float64_text(as_number(v))
    if family is TypeFamily.DECIMAL:
        return decimal_text
    if family in TEXT_FAMILIES:
        return as_text
    if family is TypeFamily.TIMESTAMP:
        texts = timestamp_texts(tz)
        return lambda v: texts(as_text(v))
    if family is TypeFamily.BINARY:
        return _binary(column)
    if family is TypeFamily.ENUM:
        return _enum(column)
    if family is TypeFamily.SET:
        return _set(column)
    if family is TypeFamily.JSON:
        return json_text
    if family is TypeFamily.VECTOR:
        return vector_list_text
    raise CodecError(f"column {column.name!r}: no canal-json rendering for {column.mysql_type}")
