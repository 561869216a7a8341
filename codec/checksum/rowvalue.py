"""The raw-bytes checksum (TiDB's checksum V2, header versions 1 and 2): the row value in row
format v2, the row handle (integer, clustered common handle or _tidb_rowid) and the row key."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Mapping
from typing import Any

from tisink.codec.checksum.columns import (
    _INTEGERS,
    _LE_U64,
    _U64,
    V2,
    V2_ROW_KEY,
    ChecksumError,
    _float,
    decimal_text,
    vector_bytes,
)
from tisink.codec.errors import CodecError
from tisink.codec.values import memcomparable as mc
from tisink.codec.values.json_binary import json_binary
from tisink.codec.values.members import binary_bytes, enum_index, set_bitmask
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo

# --- the raw row value (row format v2) -------------------------------------------------------


def _compact_int(v: int) -> bytes:
    for size, fmt in ((1, "<b"), (2, "<h"), (4, "<i")):
        if -(1 << (8 * size - 1)) <= v < 1 << (8 * size - 1):
            return struct.pack(fmt, v)
    return struct.pack("<q", v)


def _compact_uint(v: int) -> bytes:
    for size, fmt in ((1, "<B"), (2, "<H"), (4, "<I")):
        if v < 1 << (8 * size):
            return struct.pack(fmt, v)
    return _LE_U64.pack(v)


def _signed(v: int) -> int:
    v &= _U64
    return v - (1 << 64) if v >= 1 << 63 else v


def packed_time(value: str) -> int:
    """TiDB ``Time.ToPackedUint`` of ``YYYY-MM-DD[ HH:MM:SS[.ffffff]]``."""
    date, _, clock = value.partition(" ")
    year, month, day = (int(p) for p in date.split("-"))
    whole, _, fraction = (clock or "00:00:00").partition(".")
    hour, minute, second = (int(p) for p in whole.split(":"))
    micro = int((fraction + "000000")[:6])
    ymd = ((year * 13 + month) << 5) | day
    hms = (hour << 12) | (minute << 6) | second
    return ((ymd << 17 | hms) << 24) | micro


def duration_nanos(value: str) -> int:
    """A TIME value ``[-]HH:MM:SS[.ffffff]`` as TiDB's duration in nanoseconds."""
    negative = value.startswith("-")
    whole, _, fraction = value.lstrip("-").partition(".")
    hour, minute, second = (int(p) for p in whole.split(":"))
    nanos = ((hour * 60 + minute) * 60 + second) * 1_000_000_000
    nanos += int((fraction + "000000")[:6]) * 1000
    return -nanos if negative else nanos


def float_key(v: float) -> bytes:
    """TiDB ``codec.EncodeFloat``: the memcomparable 8 bytes of a float64."""
    return mc.encode_float(v)


_DIG2BYTES = (0, 1, 1, 2, 2, 3, 3, 4, 4, 4)


def decimal_bin(text: str, precision: int, frac: int) -> bytes:
    """TiDB ``MyDecimal.ToBin`` (MySQL's decimal2bin) of a decimal text at (precision, frac)."""
    negative = text.startswith("-")
    int_part, _, frac_part = text.lstrip("-").partition(".")
    int_part = int_part.lstrip("0")
    frac_part = (frac_part + "0" * frac)[:frac]
    intg = precision - frac
    if len(int_part) > intg:
        raise ChecksumError(f"decimal {text} does not fit ({precision},{frac})")
    int_part = int_part.rjust(intg, "0")
    out = bytearray()
    lead = intg % 9
    if lead:
        out += int(int_part[:lead]).to_bytes(_DIG2BYTES[lead], "big")
    for i in range(lead, intg, 9):
        out += int(int_part[i : i + 9]).to_bytes(4, "big")
    full = frac - frac % 9
    for i in range(0, full, 9):
        out += int(frac_part[i : i + 9]).to_bytes(4, "big")
    if frac % 9:
        out += int(frac_part[full:]).to_bytes(_DIG2BYTES[frac % 9], "big")
    if negative and (int(int_part or "0") or int(frac_part or "0")):
        out = bytearray(b ^ 0xFF for b in out)
    if out:
        out[0] ^= 0x80
    return bytes(out)


def value_bytes(column: ColumnInfo, value: Any) -> bytes:
    """TiDB ``encodeValueDatum``: a non-NULL column's bytes in the row value (row format v2)."""
    family = column.family
    try:
        if family in _INTEGERS:
            if column.unsigned and family is not TypeFamily.YEAR:
                return _compact_uint(int(value) & _U64)
            return _compact_int(_signed(int(value)))
        if family is TypeFamily.BIT:
            return _compact_uint(int(value) & _U64)
        if family is TypeFamily.FLOAT or family is TypeFamily.DOUBLE:
            return float_key(_float(column, value))
        if family is TypeFamily.STRING:
            return str(value).encode("utf-8", "surrogatepass")
        if family is TypeFamily.BINARY:
            return binary_bytes(column, value)
        if family in (TypeFamily.DATE, TypeFamily.DATETIME, TypeFamily.TIMESTAMP):
            return _compact_uint(packed_time(str(value)))
        if family is TypeFamily.TIME:
            return _compact_int(duration_nanos(str(value)))
        if family is TypeFamily.ENUM:
            return _compact_uint(enum_index(column, value))
        if family is TypeFamily.SET:
            return _compact_uint(set_bitmask(column, value))
        if family is TypeFamily.DECIMAL:
            return _decimal_bytes(column, value)
        if family is TypeFamily.JSON:
            return json_binary(value)
        if family is TypeFamily.VECTOR:
            return vector_bytes(value)
    except ChecksumError:
        raise
    except (CodecError, TypeError, ValueError, OverflowError, struct.error) as err:
        raise ChecksumError(f"column {column.name!r}: {value!r}: {err}") from err
    raise ChecksumError(
        f"column {column.name!r}: the raw-bytes checksum (V2) of a {column.mysql_type} column "
        "needs TiDB's binary encoding of it, which tisink does not implement"
    )


def _decimal_bytes(column: ColumnInfo, value: Any) -> bytes:
    """TiDB ``codec.EncodeDecimal`` at the column's (precision, frac): both bytes, then bin."""
    precision = column.length or 10
    frac = max(column.decimal, 0)
    return bytes((precision, frac)) + decimal_bin(decimal_text(column, value), precision, frac)


# --- the row handle ---------------------------------------------------------------------------

INT_HANDLE = "int"
"""The row is keyed by its integer primary key (TiDB's ``PKIsHandle``)."""
COMMON_HANDLE = "common"
"""The row is keyed by its clustered primary key's memcomparable encoding (``IsCommonHandle``)."""
ROW_ID = "_tidb_rowid"
"""The row is keyed by the hidden ``_tidb_rowid`` (no primary key, or a NONCLUSTERED one)."""

_TEXT_AND_BLOB = frozenset(
    ("tinytext", "text", "mediumtext", "longtext", "tinyblob", "blob", "mediumblob", "longblob")
)


def primary_index(table: TableInfo) -> IndexInfo | None:
    for index in table.indexes:
        if index.primary:
            return index
    return None


def _int_primary_column(table: TableInfo) -> ColumnInfo | None:
    """The single integer column of the primary key, if it is one (TiDB ``IsIntegerType``)."""
    index = primary_index(table)
    if index is not None and len(index.columns) == 1:
        column = table.column_by_name[index.columns[0]]
        if column.family in (TypeFamily.INT, TypeFamily.BIGINT):
            return column
    return None


def handle_kind(table: TableInfo, clustered: bool | None = None, *, row_id: bool = False) -> str:
    """How TiDB keys the rows of ``table``: ``INT_HANDLE``, ``COMMON_HANDLE`` or ``ROW_ID``.

    ``clustered`` is the primary key's CLUSTERED/NONCLUSTERED, which neither TiCDC's table
    schema nor tisink's model records. None means TiDB's default (``tidb_enable_clustered_index
    = ON`` since v5.0: every primary key clustered), unless ``row_id`` (a _tidb_rowid is at
    hand, which only a non-clustered table has) says the key is not clustered."""
    if primary_index(table) is None or clustered is False:
        return ROW_ID
    if _int_primary_column(table) is not None:
        return INT_HANDLE
    if clustered is None and row_id:
        return ROW_ID
    return COMMON_HANDLE


def int_handle_column(table: TableInfo, clustered: bool | None = None) -> ColumnInfo | None:
    """The integer primary key TiDB uses as the row handle (kept out of the row value)."""
    if handle_kind(table, clustered) != INT_HANDLE:
        return None
    return _int_primary_column(table)


def _skipped_in_value(column: ColumnInfo, kind: str, primary: IndexInfo | None) -> bool:
    """TiDB ``tables.CanSkip``: a column the row value leaves out. The integer handle, and a
    clustered primary-key column whose value its key gives back (no prefix, and not a string
    ``types.NeedRestoredData``). A NULL is always listed, as TiDB does since the fix of
    pingcap/tidb#61709; TiDB before it also left out a NULL whose column had neither a
    default nor an origin default, which the checksum here does not follow."""
    if kind == INT_HANDLE and primary is not None and column.name == primary.columns[0]:
        return True
    if kind == COMMON_HANDLE and primary is not None and column.name in primary.columns:
        return not mc.needs_restored_data(column.mysql_type, column.collate)
    return False


def row_value(
    table: TableInfo,
    image: Mapping[str, Any],
    *,
    version: int = V2,
    clustered: bool | None = None,
    row_id: bool = False,
) -> bytes:
    """The row value TiDB writes (row format v2, checksum flag set, the checksum header byte
    appended, the checksum itself not): what the raw-bytes checksum covers before the key.
    ``clustered`` and ``row_id`` as ``handle_kind`` takes them."""
    kind = handle_kind(table, clustered, row_id=row_id)
    primary = primary_index(table)
    columns = [c for c in table.stored_columns if not _skipped_in_value(c, kind, primary)]
    not_null = sorted((c for c in columns if image.get(c.name) is not None), key=lambda c: c.id)
    null = sorted((c for c in columns if image.get(c.name) is None), key=lambda c: c.id)
    data = bytearray()
    offsets = []
    for column in not_null:
        data += value_bytes(column, image[column.name])
        offsets.append(len(data))
    large = any(c.id > 255 for c in columns) or len(data) > 0xFFFF
    flags = 0x02 | (0x01 if large else 0)
    out = bytearray((128, flags))
    out += struct.pack("<HH", len(not_null), len(null))
    id_fmt, offset_fmt = ("<I", "<I") if large else ("<B", "<H")
    for column in (*not_null, *null):
        out += struct.pack(id_fmt, column.id)
    for offset in offsets:
        out += struct.pack(offset_fmt, offset)
    out += data
    out.append(version)
    return bytes(out)


def int_handle_bytes(handle: int) -> bytes:
    """TiDB ``kv.IntHandle.Encoded()`` (``codec.EncodeInt``): big-endian, sign bit flipped."""
    return mc.encode_int(_signed(handle))


def key_datum(column: ColumnInfo, value: Any) -> bytes:
    """TiDB ``codec.EncodeKey`` of one primary-key value as the column's datum: its flag and
    memcomparable body (a string by its collation's sort key)."""
    family = column.family
    if value is None:
        raise ChecksumError(f"column {column.name!r}: a primary-key column cannot be NULL")
    if column.mysql_type in _TEXT_AND_BLOB:
        raise ChecksumError(
            f"column {column.name!r}: a {column.mysql_type} key part has a prefix length, "
            "which the table schema does not carry (TiDB truncates the value to it)"
        )
    try:
        if family in _INTEGERS and column.unsigned and family is not TypeFamily.YEAR:
            return bytes((mc.UINT_FLAG,)) + mc.encode_uint(int(value))
        if family in _INTEGERS:
            return bytes((mc.INT_FLAG,)) + mc.encode_int(int(value))
        if family is TypeFamily.BIT:
            return bytes((mc.UINT_FLAG,)) + mc.encode_uint(int(value) & _U64)
        if family is TypeFamily.FLOAT or family is TypeFamily.DOUBLE:
            return bytes((mc.FLOAT_FLAG,)) + mc.encode_float(_float(column, value))
        if family is TypeFamily.STRING:
            text = str(value).encode("utf-8", "surrogatepass")
            key = mc.collation_key(column.collate, text)
            return bytes((mc.BYTES_FLAG,)) + mc.encode_bytes(key)
        if family is TypeFamily.BINARY:
            return bytes((mc.BYTES_FLAG,)) + mc.encode_bytes(binary_bytes(column, value))
        if family in (TypeFamily.DATE, TypeFamily.DATETIME, TypeFamily.TIMESTAMP):
            return bytes((mc.UINT_FLAG,)) + mc.encode_uint(packed_time(str(value)))
        if family is TypeFamily.TIME:
            return bytes((mc.DURATION_FLAG,)) + mc.encode_int(duration_nanos(str(value)))
        if family is TypeFamily.DECIMAL:
            return bytes((mc.DECIMAL_FLAG,)) + _decimal_bytes(column, value)
        if family is TypeFamily.ENUM:
            return bytes((mc.UINT_FLAG,)) + mc.encode_uint(enum_index(column, value))
        if family is TypeFamily.SET:
            return bytes((mc.UINT_FLAG,)) + mc.encode_uint(set_bitmask(column, value))
    except ChecksumError:
        raise
    except (CodecError, TypeError, ValueError, OverflowError, struct.error) as err:
        raise ChecksumError(f"column {column.name!r}: {value!r}: {err}") from err
    raise ChecksumError(f"column {column.name!r}: a {column.mysql_type} cannot be a key part")


def common_handle_bytes(table: TableInfo, image: Mapping[str, Any]) -> bytes:
    """TiDB ``kv.CommonHandle.Encoded()``: ``codec.EncodeKey`` of the clustered primary key's
    values in the key's column order (what follows ``_r`` in the row key)."""
    primary = primary_index(table)
    if primary is None:
        raise ChecksumError(f"table {table.qualified_name}: no primary key, no common handle")
    by_name = table.column_by_name
    return b"".join(key_datum(by_name[name], image.get(name)) for name in primary.columns)


def handle_bytes(
    table: TableInfo,
    image: Mapping[str, Any],
    handle: int | None = None,
    clustered: bool | None = None,
) -> bytes:
    """TiDB ``kv.Handle.Encoded()`` of the row: the integer primary key, the clustered
    primary key's memcomparable encoding, or ``handle`` (the _tidb_rowid) encoded as an int."""
    kind = handle_kind(table, clustered, row_id=handle is not None)
    if kind == INT_HANDLE:
        return int_handle_bytes(row_handle(table, image, handle))
    if kind == COMMON_HANDLE:
        return common_handle_bytes(table, image)
    if handle is None:
        raise ChecksumError(
            f"table {table.qualified_name}: the raw-bytes checksum needs the row handle; the "
            "table's rows are keyed by _tidb_rowid (no primary key, or a NONCLUSTERED one), "
            "which neither TiCDC's messages nor tisink's row events carry, and none was given"
        )
    return int_handle_bytes(handle)


def row_key(physical_table_id: int, handle: int | bytes) -> bytes:
    """TiDB ``tablecodec.EncodeRowKeyWithHandle``: ``t{table id}_r{handle}``; ``handle`` an
    int handle or an already encoded one (``handle_bytes``, a common handle's)."""
    encoded = handle if isinstance(handle, bytes) else int_handle_bytes(handle)
    return b"t" + int_handle_bytes(physical_table_id) + b"_r" + encoded


def row_handle(table: TableInfo, image: Mapping[str, Any], handle: int | None = None) -> int:
    """The row's integer handle: its integer primary key, else ``handle`` (its _tidb_rowid)."""
    column = _int_primary_column(table)
    if column is not None and image.get(column.name) is not None:
        return _signed(int(image[column.name]))
    if handle is None:
        raise ChecksumError(
            f"table {table.qualified_name}: the raw-bytes checksum needs the row handle; the "
            "table has no integer primary key and no _tidb_rowid was given"
        )
    return handle


def raw_checksum(
    table: TableInfo,
    image: Mapping[str, Any],
    *,
    version: int = V2,
    physical_table_id: int | None = None,
    handle: int | None = None,
    clustered: bool | None = None,
) -> int:
    """TiDB's raw-bytes checksum (checksum V2, header version 2; version 1: v8.3's, over the
    row key instead of the handle) of a row image. ``handle`` is the row's _tidb_rowid, for a
    table keyed by one; ``clustered`` as ``handle_kind`` takes it."""
    if version not in (V2_ROW_KEY, V2):
        raise ChecksumError(f"raw-bytes checksum version {version}: TiDB has 1 and 2")
    encoded = handle_bytes(table, image, handle, clustered)
    value = row_value(table, image, version=version, clustered=clustered, row_id=handle is not None)
    crc = zlib.crc32(value)
    if version == V2:
        return zlib.crc32(encoded, crc)
    table_id = table.table_id if physical_table_id is None else physical_table_id
    return zlib.crc32(row_key(table_id, encoded), crc)
