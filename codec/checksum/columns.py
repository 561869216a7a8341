"""The column-level checksum (TiDB's checksum V1, header version 0): what TiCDC carries as
``current``/``previous``; the shared constants and ``ChecksumError``."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable, Mapping
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from tisink.codec.errors import CodecError
from tisink.codec.values.floats import to_float32
from tisink.codec.values.json_text import json_text
from tisink.codec.values.members import binary_bytes, enum_index, set_bitmask
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo, TableInfo

V1 = 0
"""TiDB's checksum header version of the column-level checksum (what TiDB calls checksum V1)."""
V2_ROW_KEY = 1
"""TiDB v8.3's raw-bytes checksum: over the row value and the row key."""
V2 = 2
"""TiDB's checksum V2 (v8.4 and later): over the row value and the encoded handle."""
VERSIONS = (V1, V2_ROW_KEY, V2)

_U64 = (1 << 64) - 1
_U32 = (1 << 32) - 1
_LE_U64 = struct.Struct("<Q")
_LE_U32 = struct.Struct("<I")
_LE_F32 = struct.Struct("<f")
_LE_F64 = struct.Struct("<d")

_INTEGERS = (TypeFamily.INT, TypeFamily.BIGINT, TypeFamily.YEAR)
_TEXTS = (TypeFamily.DATE, TypeFamily.DATETIME, TypeFamily.TIMESTAMP, TypeFamily.TIME)


class ChecksumError(CodecError):
    """A value TiDB's checksum cannot be computed for; the message names the column."""


# --- values -----------------------------------------------------------------------------------


def _fsp_text(value: str, fsp: int) -> str:
    """A date-time or time text with exactly ``fsp`` fractional digits (TiDB's String())."""
    whole, _, fraction = value.partition(".")
    if fsp <= 0:
        return whole
    return whole + "." + (fraction + "0" * fsp)[:fsp]


def decimal_text(column: ColumnInfo, value: Any) -> str:
    """``MyDecimal.String()`` of a value stored in ``column``: at the column's scale."""
    try:
        number = Decimal(str(value))
    except InvalidOperation as err:
        raise ChecksumError(f"column {column.name!r}: {value!r} is not a decimal") from err
    scale = max(column.decimal, 0)
    number = number.quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP)
    if number == 0:
        number = abs(number)
    return f"{number:f}"


def _float(column: ColumnInfo, value: Any) -> float:
    number = float(value)
    return to_float32(number) if column.family is TypeFamily.FLOAT else number


def vector_bytes(value: Iterable[float]) -> bytes:
    """TiDB ``VectorFloat32.SerializeTo``: the dimension (uint32) and the float32s, LE."""
    items = list(value)
    return _LE_U32.pack(len(items)) + b"".join(_LE_F32.pack(float(x)) for x in items)


def _length_value(data: bytes) -> bytes:
    return _LE_U32.pack(len(data)) + data


def encode_column(column: ColumnInfo, value: Any) -> bytes:
    """TiDB ``ColData.Encode``: the bytes one column adds to the column-level checksum
    (none for NULL). ``value`` is in the feed's form; a TIMESTAMP is already in UTC, which is
    what TiDB converts it to."""
    if value is None:
        return b""
    family = column.family
    try:
        if family in _INTEGERS or family is TypeFamily.BIT:
            return _LE_U64.pack(int(value) & _U64)
        if family is TypeFamily.FLOAT or family is TypeFamily.DOUBLE:
            number = _float(column, value)
            if number != number or number in (float("inf"), float("-inf")):
                number = 0.0  # "because ticdc has such a transform"
            return _LE_F64.pack(number)
        if family is TypeFamily.STRING:
            return _length_value(str(value).encode("utf-8", "surrogatepass"))
        if family is TypeFamily.BINARY:
            return _length_value(binary_bytes(column, value))
        if family is TypeFamily.DATE:
            return _length_value(str(value).encode())
        if family in _TEXTS:
            return _length_value(_fsp_text(str(value), column.decimal).encode())
        if family is TypeFamily.DECIMAL:
            return _length_value(decimal_text(column, value).encode())
        if family is TypeFamily.ENUM:
            return _LE_U64.pack(enum_index(column, value))
        if family is TypeFamily.SET:
            return _LE_U64.pack(set_bitmask(column, value))
        if family is TypeFamily.JSON:
            return _length_value(json_text(value).encode("utf-8", "surrogatepass"))
        if family is TypeFamily.VECTOR:
            return vector_bytes(value)
    except ChecksumError:
        raise
    except (CodecError, TypeError, ValueError, OverflowError, struct.error) as err:
        raise ChecksumError(f"column {column.name!r}: {value!r}: {err}") from err
    raise ChecksumError(f"column {column.name!r}: no checksum encoding for {column.mysql_type}")


def _checksum_columns(table: TableInfo) -> tuple[ColumnInfo, ...]:
    """The columns TiCDC checks: those it replicates (no virtual generated ones), by id."""
    return tuple(sorted(table.stored_columns, key=lambda c: c.id))


def encode_row(table: TableInfo, image: Mapping[str, Any]) -> bytes:
    """TiDB ``RowData.Encode``: every column's checksum bytes in column-id order."""
    return b"".join(encode_column(c, image.get(c.name)) for c in _checksum_columns(table))


def column_checksum(table: TableInfo, image: Mapping[str, Any]) -> int:
    """TiDB ``RowData.Checksum`` (checksum V1): the CRC32 TiCDC writes as current/previous."""
    crc = 0
    for column in _checksum_columns(table):
        crc = zlib.crc32(encode_column(column, image.get(column.name)), crc)
    return crc
