"""Per-table renderers for the JSON ``data``/``old`` maps (spec 2).

A renderer is built once per table schema version: it binds one converter per stored column,
pre-sorted by name (``data`` is a Go map, so ``json.Marshal`` sorts its keys bytewise, which for
UTF-8 is code-point order), so the per-row work is one loop of C-level calls.
"""

from __future__ import annotations

import binascii
import datetime
import re
import struct
from collections.abc import Callable
from typing import Any

from codec.errors import CodecError
from codec.simple.values import (
    binary_bytes,
    enum_index,
    float32_text,
    float64_text,
    json_text,
    set_bitmask,
    timestamp_text,
    vector_text,
)
from model.events import Image
from model.mysqltypes import TypeFamily
from model.table import ColumnInfo, TableInfo

Converter = Callable[[Any], Any]

_DECIMAL = re.compile(r"-?[0-9]+(\.[0-9]+)?")
_RENDER_ERRORS = (
    KeyError,
    TypeError,
    ValueError,
    OverflowError,
    AttributeError,
    struct.error,
    CodecError,
)


def _number(v: Any) -> float:
    if type(v) is float or (type(v) is int):
        return v
    raise TypeError(f"want a number, got {type(v).__name__}")


def _float_text(v: Any) -> str:
    if type(v) is float:
        return float32_text(v)
    return float32_text(float(_number(v)))


def _double_text(v: Any) -> str:
    return float64_text(float(_number(v)))


def _decimal_text(v: Any) -> str:
    if type(v) is str and _DECIMAL.fullmatch(v):
        return v
    raise ValueError(f"want a decimal string like '-12.50', got {v!r}")


def _unsigned_text(v: Any) -> str:
    if type(v) is int and v >= 0:
        return int.__repr__(v)
    raise ValueError(f"want an unsigned integer, got {v!r}")


def converter_for(column: ColumnInfo, tz: datetime.tzinfo, zone_name: str) -> Converter:
    """The function from a non-NULL feed value to the JSON value TiCDC writes for ``column``."""
    family = column.family
    if family in (TypeFamily.INT, TypeFamily.BIGINT, TypeFamily.YEAR):
        # int.__repr__ and str.__str__ are C-level: they format or pass the value through and
        # reject a value of the wrong type, at no extra Python call.
        return int.__repr__
    if family in (TypeFamily.STRING, TypeFamily.DATE, TypeFamily.DATETIME, TypeFamily.TIME):
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
        return lambda v: str(enum_index(column, v))
    if family is TypeFamily.SET:
        return lambda v: str(set_bitmask(column, v))
    if family is TypeFamily.JSON:
        return json_text
    if family is TypeFamily.VECTOR:
        return vector_text
    raise CodecError(f"column {column.name!r}: no JSON rendering for {column.mysql_type}")


class JSONRowRenderer:
    """Renders row images of one table version into sorted ``data``/``old`` dicts."""

    __slots__ = ("_columns", "_key_columns", "head", "table")

    def __init__(self, table: TableInfo, tz: datetime.tzinfo, zone_name: str) -> None:
        self.table = table
        self.head: dict[str, Any] = {"version": 1}
        """The message fields fixed per table: ``version`` and the omitempty names."""
        if table.schema:
            self.head["database"] = table.schema
        if table.table:
            self.head["table"] = table.table
        stored = sorted(table.stored_columns, key=lambda c: c.name)
        self._columns = tuple((c.name, converter_for(c, tz, zone_name)) for c in stored)
        handle_key = set(table.handle_key)
        self._key_columns = tuple(pair for pair in self._columns if pair[0] in handle_key)

    def render(self, image: Image, handle_key_only: bool = False) -> dict[str, Any]:
        """The map for one image; only the handle-key columns when ``handle_key_only``."""
        out: dict[str, Any] = {}
        name = ""
        try:
            for name, convert in self._key_columns if handle_key_only else self._columns:
                value = image[name]
                out[name] = None if value is None else convert(value)
        except _RENDER_ERRORS as err:
            raise self._error(name, image, err) from err
        return out

    def _error(self, name: str, image: Image, err: Exception) -> CodecError:
        where = f"table {self.table.qualified_name}: column {name!r}"
        if name not in image:
            return CodecError(f"{where}: missing from the row image")
        column = self.table.column_by_name[name]
        return CodecError(
            f"{where}: cannot render {column.mysql_type} value {image[name]!r}: {err}"
        )
