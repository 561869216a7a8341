"""Per-column converters for the JSON ``data``/``old`` maps (spec 2).

A converter takes one non-NULL feed value and returns the JSON value TiCDC writes for the column
(mostly text). The generated renderers in ``json_rows`` inline the common cases and call these
only for the odd ones, so each converter is the exact, checking form of its rule.
"""

from __future__ import annotations

import binascii
import datetime
import re
from collections.abc import Callable
from typing import Any

from tisink.codec.errors import CodecError
from tisink.codec.values import (
    binary_bytes,
    enum_indexes,
    float32_text,
    float64_text,
    json_text,
    set_mask,
    timestamp_text,
    vector_text,
)
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo

Converter = Callable[[Any], Any]

DECIMAL = re.compile(r"-?[0-9]+(\.[0-9]+)?")
"""The decimal feed form: the text is written as given once it has this shape."""

INT_FAMILIES = (TypeFamily.INT, TypeFamily.BIGINT, TypeFamily.YEAR)
TEXT_FAMILIES = (TypeFamily.STRING, TypeFamily.DATE, TypeFamily.DATETIME, TypeFamily.TIME)


def _number(v: Any) -> int | float:
    if type(v) is float or type(v) is int:
        return v
    raise TypeError(f"want a number, got {type(v).__name__}")


def _float_text(v: Any) -> str:
    if type(v) is float:
        return float32_text(v)
    return float32_text(float(_number(v)))


def _double_text(v: Any) -> str:
    if type(v) is float:
        return float64_text(v)
    return float64_text(float(_number(v)))


def _decimal_text(v: Any) -> str:
    if type(v) is str and DECIMAL.fullmatch(v):
        return v
    raise ValueError(f"want a decimal string like '-12.50', got {v!r}")


def _unsigned_text(v: Any) -> str:
    if type(v) is int and v >= 0:
        return int.__repr__(v)
    raise ValueError(f"want an unsigned integer, got {v!r}")


def _enum_texts(column: ColumnInfo) -> Converter:
    """A C-level lookup from member name to its index text ("" is MySQL's error member, 0)."""
    return {name: str(index) for name, index in enum_indexes(column).items()}.__getitem__


def _set_texts(column: ColumnInfo) -> Converter:
    mask = set_mask(column)
    return lambda v: str(mask(v))


def converter_for(column: ColumnInfo, tz: datetime.tzinfo, zone_name: str) -> Converter:
    """The function from a non-NULL feed value to the JSON value TiCDC writes for ``column``."""
    family = column.family
    if family in INT_FAMILIES:
        # int.__repr__ and str.__str__ are C-level: they format or pass the value through and
        # reject a value of the wrong type, at no extra Python call.
        return int.__repr__
    if family in TEXT_FAMILIES:
        return str.__str__
    if family is TypeFamily.FLOAT:
        return _float_text
    if family is TypeFamily.DOUBLE:
        return _double_text
    if family is TypeFamily.DECIMAL:
        return _decimal_text
    if family is TypeFamily.BIT:
        return _unsigned_text
    if family is TypeFamily.BINARY:
        return lambda v: binascii.b2a_base64(binary_bytes(column, v), newline=False).decode()
    if family is TypeFamily.TIMESTAMP:
        return lambda v: {"location": zone_name, "value": timestamp_text(v, tz)}
    if family is TypeFamily.ENUM:
        return _enum_texts(column)
    if family is TypeFamily.SET:
        return _set_texts(column)
    if family is TypeFamily.JSON:
        return json_text
    if family is TypeFamily.VECTOR:
        return vector_text
    raise CodecError(f"column {column.name!r}: no JSON rendering for {column.mysql_type}")
