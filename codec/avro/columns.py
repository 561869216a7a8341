"""One column in TiCDC's Avro: its schema entry, its default and its value converter (tiflow
``columnToAvroSchema``, ``columnToAvroData`` and the field loop of ``columns2AvroSchema``).

Every Avro type carries ``connect.parameters`` with ``tidb_type`` (BIT adds ``length``, ENUM and
SET ``allowed``). DECIMAL is an Avro ``decimal`` on ``bytes`` in precise mode, its text in string
mode; BIGINT UNSIGNED is a ``long`` (values over 2^63-1 wrap, as Go's ``int64(uint64)``) or its
text. Dates, times, JSON and vectors are their TiDB text; TIMESTAMP is in the changefeed's zone.
Converters take the feed value form (spec/feed-format.md "Values") and return what fastavro
writes; they are bound once per table version.
"""

from __future__ import annotations

import base64
import datetime
from collections.abc import Callable
from typing import Any

import orjson

from tisink.codec.avro.options import AvroOptions
from tisink.codec.debezium.jsonwriter import float64_json
from tisink.codec.errors import CodecError
from tisink.codec.names import escape_enum_option
from tisink.codec.values import binary_bytes, bit_default_number, set_names, to_float32
from tisink.codec.values.checks import as_number, as_text, decimal_text
from tisink.codec.values.texts import tidb_text
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo

Converter = Callable[[Any], Any]

_INT64 = 1 << 64
_INT64_MAX = (1 << 63) - 1
DEFAULT_BIT_LENGTH = 1
"""TiDB's default BIT length (``GetDefaultFieldLengthAndDecimal``), for a length not given."""
DEFAULT_DECIMAL_PRECISION = 10
"""TiDB's default DECIMAL precision (its default scale is 0)."""

_TIDB_TYPES: dict[TypeFamily, str] = {
    TypeFamily.INT: "INT",
    TypeFamily.BIGINT: "BIGINT",
    TypeFamily.FLOAT: "FLOAT",
    TypeFamily.DOUBLE: "DOUBLE",
    TypeFamily.BIT: "BIT",
    TypeFamily.DECIMAL: "DECIMAL",
    TypeFamily.STRING: "TEXT",
    TypeFamily.BINARY: "BLOB",
    TypeFamily.ENUM: "ENUM",
    TypeFamily.SET: "SET",
    TypeFamily.JSON: "JSON",
    TypeFamily.DATE: "DATE",
    TypeFamily.DATETIME: "DATETIME",
    TypeFamily.TIMESTAMP: "TIMESTAMP",
    TypeFamily.TIME: "TIME",
    TypeFamily.YEAR: "YEAR",
    TypeFamily.VECTOR: "TiDBVECTORFloat32",
}
_TEXT_TYPES = frozenset(
    (
        TypeFamily.ENUM,
        TypeFamily.SET,
        TypeFamily.JSON,
        TypeFamily.DATE,
        TypeFamily.DATETIME,
        TypeFamily.TIMESTAMP,
        TypeFamily.TIME,
        TypeFamily.VECTOR,
        TypeFamily.STRING,
    )
)


def tidb_type(column: ColumnInfo) -> str:
    """``getTiDBTypeFromColumn``: the ``tidb_type`` parameter (UNSIGNED only on integers)."""
    name = _TIDB_TYPES[column.family]
    if column.unsigned and name in ("INT", "BIGINT"):
        return name + " UNSIGNED"
    return name


def _long_int(column: ColumnInfo) -> bool:
    """INT UNSIGNED does not fit an Avro int, so TiCDC makes it a long."""
    return column.mysql_type == "int" and column.unsigned


def _bigint_text(column: ColumnInfo, options: AvroOptions) -> bool:
    return (
        column.family is TypeFamily.BIGINT
        and column.unsigned
        and options.bigint_unsigned_handling_mode == "string"
    )


def precise_decimal(column: ColumnInfo, options: AvroOptions) -> bool:
    """Whether the column is an Avro ``decimal`` logical type (goavro gives those no default)."""
    return column.family is TypeFamily.DECIMAL and options.decimal_handling_mode == "precise"


def decimal_scale(column: ColumnInfo) -> int:
    return column.decimal


def avro_type(column: ColumnInfo, options: AvroOptions) -> dict[str, Any]:
    """The column's Avro type with its ``connect.parameters``, keys in Go's field order."""
    family = column.family
    parameters: dict[str, str] = {"tidb_type": tidb_type(column)}
    if family is TypeFamily.INT:
        kind = "long" if _long_int(column) else "int"
    elif family is TypeFamily.BIGINT:
        kind = "string" if _bigint_text(column, options) else "long"
    elif family is TypeFamily.YEAR:
        kind = "int"
    elif family is TypeFamily.FLOAT:
        kind = "float"
    elif family is TypeFamily.DOUBLE:
        kind = "double"
    elif family is TypeFamily.BIT:
        kind = "bytes"
        parameters = {"length": str(column.length or DEFAULT_BIT_LENGTH)} | parameters
    elif family is TypeFamily.DECIMAL:
        if precise_decimal(column, options):
            return {
                "type": "bytes",
                "connect.parameters": parameters,
                "logicalType": "decimal",
                "precision": column.length or DEFAULT_DECIMAL_PRECISION,
                "scale": decimal_scale(column),
            }
        kind = "string"
    elif family is TypeFamily.BINARY:
        kind = "bytes"
    elif family in (TypeFamily.ENUM, TypeFamily.SET):
        kind = "string"
        allowed = ",".join(escape_enum_option(e) for e in column.elements)
        parameters = {"allowed": allowed} | parameters
    elif family in _TEXT_TYPES:
        kind = "string"
    else:  # pragma: no cover - every family is listed above
        raise CodecError(f"column {column.name!r}: unknown mysql type {column.mysql_type}")
    return {"type": kind, "connect.parameters": parameters}


# --- values -------------------------------------------------------------------------------------


def _integer(v: Any) -> int:
    if type(v) is not int:
        raise TypeError(f"want an integer, got {type(v).__name__}")
    return v


def _wrapped_long(v: Any) -> int:
    """Go's ``int64(uint64)``: an unsigned BIGINT over 2^63-1 wraps to a negative long."""
    n = _integer(v)
    return n - _INT64 if n > _INT64_MAX else n


def _float(v: Any) -> float:
    return to_float32(as_number(v))


def bit_bytes(number: int) -> bytes:
    """TiDB ``NewBinaryLiteralFromUint(v, -1)``: big-endian, leading zero bytes dropped, at
    least one byte."""
    if type(number) is not int or not 0 <= number < _INT64:
        raise ValueError(f"want an unsigned 64-bit integer, got {number!r}")
    return number.to_bytes(max(1, (number.bit_length() + 7) // 8), "big")


def bit_bytes_wide(number: int, width: int) -> bytes:
    """ticdc's BIT bytes: the datum's ``BinaryLiteral`` as the chunk holds it, ``(M+7)/8``
    bytes big-endian with its leading zeros (tiflow drops them: ``bit_bytes``); a value wider
    than the column, which TiDB never holds, keeps all its bytes."""
    if type(number) is not int or not 0 <= number < _INT64:
        raise ValueError(f"want an unsigned 64-bit integer, got {number!r}")
    return number.to_bytes(max(width, (number.bit_length() + 7) // 8), "big")


def decimal_bytes(text: str, scale: int) -> bytes:
    """goavro's ``bytes.decimal`` of a decimal text: the value times 10^scale, floored (Go's
    ``big.Int.Div``), as minimal big-endian two's complement."""
    sign = -1 if text.startswith("-") else 1
    whole, _, fraction = text.lstrip("+-").partition(".")
    if not (whole or fraction) or not (whole + fraction).isdigit() or not whole.isascii():
        raise ValueError(f"want a decimal string like '-12.50', got {text!r}")
    numerator = sign * int((whole or "0") + fraction)
    denominator = 10 ** len(fraction)
    unscaled = numerator * 10**scale // denominator
    width = ((unscaled if unscaled >= 0 else ~unscaled).bit_length() + 8) // 8
    return unscaled.to_bytes(width, "big", signed=True)


def converter(column: ColumnInfo, options: AvroOptions, tz: datetime.tzinfo) -> Converter:
    """The function from a non-NULL feed value of ``column`` to the value fastavro writes."""
    family = column.family
    if family in (TypeFamily.INT, TypeFamily.YEAR):
        return _integer
    if family is TypeFamily.BIGINT:
        if not column.unsigned:
            return _integer
        if _bigint_text(column, options):
            return lambda v: str(_integer(v))
        return _wrapped_long
    if family is TypeFamily.FLOAT:
        return _float
    if family is TypeFamily.DOUBLE:
        return as_number
    if family is TypeFamily.BIT:
        if options.newarch:
            width = ((column.length or DEFAULT_BIT_LENGTH) + 7) // 8
            return lambda v: bit_bytes_wide(v, width)
        return bit_bytes
    if family is TypeFamily.DECIMAL:
        if precise_decimal(column, options):
            scale = decimal_scale(column)
            return lambda v: decimal_bytes(decimal_text(v), scale)
        return decimal_text
    if family is TypeFamily.BINARY:
        return lambda v: binary_bytes(column, as_text(v))
    if family is TypeFamily.ENUM:
        return as_text
    if family is TypeFamily.SET:
        return set_names(column)
    text = tidb_text(column, tz)
    if text is None:  # pragma: no cover - the families above cover the rest
        raise CodecError(f"column {column.name!r}: no Avro value for {column.mysql_type}")
    return text


# --- defaults -----------------------------------------------------------------------------------


def default_json(column: ColumnInfo, options: AvroOptions) -> Any:
    """The field's ``default`` as JSON-ready data (None when the column has none): TiDB's
    stored default text read as ``columnToAvroData`` reads a value, then ``json.Marshal``ed
    (so BIT and binary defaults are base64 text, as Go writes ``[]byte``)."""
    default = column.default
    if default is None:
        return None
    family = column.family
    if family is TypeFamily.BIT:
        number = bit_default_number(default) or 0
        width = ((column.length or DEFAULT_BIT_LENGTH) + 7) // 8
        return base64.b64encode(number.to_bytes(max(width, 8), "big")[-width:]).decode()
    text = default if isinstance(default, str) else str(default)
    try:
        if family in (TypeFamily.INT, TypeFamily.YEAR):
            return int(text)
        if family is TypeFamily.BIGINT:
            if _bigint_text(column, options):
                return text
            return _wrapped_long(int(text))
        if family is TypeFamily.FLOAT:
            return orjson.Fragment(float64_json(to_float32(float(text))))
        if family is TypeFamily.DOUBLE:
            return orjson.Fragment(float64_json(float(text)))
    except ValueError as err:
        raise CodecError(f"column {column.name!r}: bad default {default!r}: {err}") from err
    if family is TypeFamily.BINARY:
        return base64.b64encode(text.encode()).decode()
    return text
