"""Per-table renderers for the JSON ``data``/``old`` maps (spec 2).

A renderer is built once per table schema version: it binds one converter per stored column,
pre-sorted by name (``data`` is a Go map, so ``json.Marshal`` sorts its keys bytewise, which for
UTF-8 is code-point order), and compiles them into one generated function, so the per-row work
is a single dict display with mostly C-level calls.
"""

from __future__ import annotations

import binascii
import datetime
import re
import struct
from collections.abc import Callable
from typing import Any

from codec.errors import CodecError
from codec.simple.gojson import go_dumps
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
    if type(v) is str and _DECIMAL.fullmatch(v):
        return v
    raise ValueError(f"want a decimal string like '-12.50', got {v!r}")


def _unsigned_text(v: Any) -> str:
    if type(v) is int and v >= 0:
        return int.__repr__(v)
    raise ValueError(f"want an unsigned integer, got {v!r}")


def _enum_texts(column: ColumnInfo) -> Converter:
    """A C-level lookup from member name to its index text ("" is MySQL's error member, 0)."""
    texts = {"": "0"}
    texts.update((name, str(enum_index(column, name))) for name in column.elements)
    return texts.__getitem__


def _set_texts(column: ColumnInfo) -> Converter:
    """Bitmask text of a list of member names, with the member bits looked up once."""
    members = list(enumerate(column.elements))
    bits = {name: 1 << position for position, name in reversed(members)}  # first one wins

    def convert(v: Any) -> str:
        if type(v) is list:
            mask = 0
            try:
                for name in v:
                    mask |= bits[name]
                return str(mask)
            except (KeyError, TypeError):
                pass
        return str(set_bitmask(column, v))  # comma strings, and the error naming the member

    return convert


def converter_for(column: ColumnInfo, tz: datetime.tzinfo, zone_name: str) -> Converter:
    """The function from a non-NULL feed value to the JSON value TiCDC writes for ``column``."""
    family = column.family
    if family in (TypeFamily.INT, TypeFamily.BIGINT, TypeFamily.YEAR):
        # int.__repr__ and str.__str__ are C-level: they format or pass the value through and
        # reject a value of the wrong type, at no extra Python call.
        return int.__repr__
    if family in _TEXT_FAMILIES:
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


_TEXT_FAMILIES = (TypeFamily.STRING, TypeFamily.DATE, TypeFamily.DATETIME, TypeFamily.TIME)


def _compile(columns: tuple[tuple[ColumnInfo, Converter], ...]) -> Callable[[Image], dict]:
    """Generate one straight-line function that builds the sorted map for these columns.

    Per-row work is then a single dict display: no loop, no tuple unpacking, text, float and
    decimal values checked inline with only the odd cases sent to their converter. Names and
    converters reach the code as default arguments (``k3``, ``c3``: fast locals), never through
    the source text.
    """
    namespace: dict[str, Any] = {
        "float32_text": float32_text,
        "float64_text": float64_text,
        "decimal_match": _DECIMAL.fullmatch,
    }
    params, reads, items = ["image"], [], []
    for i, (column, convert) in enumerate(columns):
        namespace[f"k{i}"], namespace[f"c{i}"] = column.name, convert
        params.append(f"k{i}=k{i}, c{i}=c{i}")
        reads.append(f"    v{i} = image[k{i}]")
        v, family = f"v{i}", column.family
        slow = f"None if {v} is None else c{i}({v})"
        if family in _TEXT_FAMILIES:
            expr = f"{v} if type({v}) is str else {slow}"
        elif family is TypeFamily.DECIMAL:
            expr = f"{v} if type({v}) is str and decimal_match({v}) else {slow}"
        elif family is TypeFamily.DOUBLE:
            expr = f"float64_text({v}) if type({v}) is float else {slow}"
        elif family is TypeFamily.FLOAT:
            expr = f"float32_text({v}) if type({v}) is float else {slow}"
        else:
            expr = slow
        items.append(f"k{i}: {expr}")
    source = "\n".join(
        [
            f"def render({', '.join(params)}):",
            *reads,
            f"    return {{{', '.join(items)}}}",
        ]
    )
    exec(compile(source, "<simple-json-row-renderer>", "exec"), namespace)
    return namespace["render"]


class JSONRowRenderer:
    """Renders row images of one table version into sorted ``data``/``old`` dicts."""

    __slots__ = (
        "_columns",
        "_key_columns",
        "_render",
        "_render_keys",
        "prefix",
        "schema_version",
        "table",
    )

    def __init__(self, table: TableInfo, tz: datetime.tzinfo, zone_name: str) -> None:
        self.table = table
        names = b"".join(
            b',"%s":%s' % (key, go_dumps(value))
            for key, value in ((b"database", table.schema), (b"table", table.table))
            if value
        )
        self.prefix = b'{"version":1' + names
        """The message start fixed per table: ``version`` and the omitempty names."""
        self.schema_version = b',"schemaVersion":%d' % table.version if table.version else b""
        stored = sorted(table.stored_columns, key=lambda c: c.name)
        self._columns = tuple((c, converter_for(c, tz, zone_name)) for c in stored)
        handle_key = set(table.handle_key)
        self._key_columns = tuple(pair for pair in self._columns if pair[0].name in handle_key)
        self._render = _compile(self._columns)
        self._render_keys = _compile(self._key_columns)

    def render(self, image: Image, handle_key_only: bool = False) -> dict[str, Any]:
        """The map for one image; only the handle-key columns when ``handle_key_only``."""
        try:
            return (self._render_keys if handle_key_only else self._render)(image)
        except _RENDER_ERRORS as err:
            raise self._error(image, handle_key_only) from err

    def _error(self, image: Image, handle_key_only: bool) -> CodecError:
        """Find the failing column by converting one column at a time."""
        where = f"table {self.table.qualified_name}"
        for column, convert in self._key_columns if handle_key_only else self._columns:
            if column.name not in image:
                return CodecError(f"{where}: column {column.name!r}: missing from the row image")
            value = image[column.name]
            try:
                if value is not None:
                    convert(value)
            except _RENDER_ERRORS as err:
                return CodecError(
                    f"{where}: column {column.name!r}: cannot render {column.mysql_type} "
                    f"value {value!r}: {err}"
                )
        return CodecError(f"{where}: cannot render the row image")
