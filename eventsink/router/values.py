"""The bytes TiCDC hashes for a column value (``ColumnValueString`` over ``ExtractColVal``).

Row images hold the feed value form; TiCDC hashes the text of the value as TiDB decoded it:
integers in decimal, floats in Go's shortest ``'f'`` form at 32 or 64 bits, strings as their
bytes, binary as the raw bytes (``binary(N)`` zero-padded to N), enum and set as their numeric
value, bit as an unsigned integer, decimals and temporal values with exactly the column's
fraction digits, timestamps moved from UTC into the zone TiCDC decodes rows in (the sink's
time zone, as the encoders use), json as TiDB prints it, vectors as ``[f32,...]``. One converter
is built per column and schema version, so the per-row path is a dict lookup and one call.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import math
from collections.abc import Callable
from typing import Any

from tisink.codec.errors import CodecError
from tisink.codec.values import (
    float32_text,
    float64_text,
    json_text,
    timestamp_text,
    to_float32,
    vector_text,
)
from tisink.eventsink.router.errors import DispatchError
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo, TableInfo

ValueBytes = Callable[[Any], bytes]


def value_bytes_for(table: TableInfo, column: ColumnInfo, zone: datetime.tzinfo) -> ValueBytes:
    """The converter from a feed value of ``column`` (never None) to the hashed bytes;
    ``zone`` is where timestamp values are rendered."""
    family = column.family
    simple = _BY_FAMILY.get(family)
    if simple is not None:
        return simple
    where = f"table {table.qualified_name} column {column.name!r}"
    if family is TypeFamily.BINARY:
        return _binary(where, column.length if column.mysql_type == "binary" else 0)
    if family is TypeFamily.TIMESTAMP:
        return _timestamp(where, column.decimal, zone)
    if family is TypeFamily.ENUM:
        return _enum(where, column.elements)
    if family is TypeFamily.SET:
        return _set(where, column.elements)
    # decimal, datetime and time: the text with the column's fraction digits
    return _with_fraction(column.decimal)


def _integer(value: Any) -> bytes:
    return str(int(value)).encode()


def _finite(value: Any) -> float:
    """TiCDC replaces NaN and infinities with 0 before hashing."""
    number = float(value)
    return number if math.isfinite(number) else 0.0


def _float32(value: Any) -> bytes:
    single = to_float32(_finite(value))
    return float32_text(single).encode() if math.isfinite(single) else b"0"


def _float64(value: Any) -> bytes:
    return float64_text(_finite(value)).encode()


def _string(value: Any) -> bytes:
    return str(value).encode()


def _binary(where: str, width: int) -> ValueBytes:
    def convert(value: Any) -> bytes:
        try:
            raw = base64.b64decode(value, validate=True)
        except (binascii.Error, TypeError, ValueError) as err:
            raise DispatchError(f"{where}: value {value!r} is not base64") from err
        return raw.ljust(width, b"\x00") if len(raw) < width else raw

    return convert


def _with_fraction(digits: int) -> ValueBytes:
    """Decimals and temporal values carry exactly ``digits`` fraction digits in TiDB's text;
    a feed value with fewer is padded with zeros (never cut, so bad input stays visible)."""

    def convert(value: Any) -> bytes:
        text = str(value)
        if digits <= 0:
            return text.encode()
        head, _, fraction = text.partition(".")
        if len(fraction) < digits:
            text = f"{head}.{fraction.ljust(digits, '0')}"
        return text.encode()

    return convert


def _timestamp(where: str, digits: int, zone: datetime.tzinfo) -> ValueBytes:
    with_fraction = _with_fraction(digits)

    def convert(value: Any) -> bytes:
        try:
            return with_fraction(timestamp_text(str(value), zone))
        except CodecError as err:
            raise DispatchError(f"{where}: {err}") from err

    return convert


def _enum(where: str, elements: tuple[str, ...]) -> ValueBytes:
    index = {name: position + 1 for position, name in enumerate(elements)}
    folded = {name.lower(): position for name, position in reversed(index.items())}

    def convert(value: Any) -> bytes:
        if isinstance(value, int):
            return str(value).encode()
        if value == "":
            return b"0"
        number = index.get(value) or folded.get(str(value).lower())
        if number is None:
            raise DispatchError(f"{where}: {value!r} is not a member of the enum")
        return str(number).encode()

    return convert


def _set(where: str, elements: tuple[str, ...]) -> ValueBytes:
    bits = {name: 1 << position for position, name in enumerate(elements)}
    folded = {name.lower(): bit for name, bit in reversed(bits.items())}

    def convert(value: Any) -> bytes:
        if isinstance(value, int):
            return str(value).encode()
        names = [n for n in value.split(",") if n] if isinstance(value, str) else value
        mask = 0
        for name in names:
            bit = bits.get(name) or folded.get(str(name).lower())
            if bit is None:
                raise DispatchError(f"{where}: {name!r} is not a member of the set")
            mask |= bit
        return str(mask).encode()

    return convert


def _json(value: Any) -> bytes:
    return json_text(value).encode()


def _vector(value: Any) -> bytes:
    return vector_text([float(v) for v in value]).encode()


_BY_FAMILY: dict[TypeFamily, ValueBytes] = {
    TypeFamily.INT: _integer,
    TypeFamily.BIGINT: _integer,
    TypeFamily.YEAR: _integer,
    TypeFamily.BIT: _integer,
    TypeFamily.FLOAT: _float32,
    TypeFamily.DOUBLE: _float64,
    TypeFamily.STRING: _string,
    TypeFamily.DATE: _string,
    TypeFamily.JSON: _json,
    TypeFamily.VECTOR: _vector,
}
