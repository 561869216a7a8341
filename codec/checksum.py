"""Row checksums as TiDB computes them and TiCDC carries them (``[integrity]
integrity-check-level = "correctness"``), from a row image in the feed's value form.

Followed from pingcap/tidb ``pkg/util/rowcodec`` (``common.go``: ``ColData.Encode``,
``RowData.Checksum``, ``appendDatumForChecksum``; ``encoder.go``: ``encodeValueDatum``,
``RawChecksum``; ``row.go``: the row format and ``CalculateRawChecksum``) and TiCDC's mounter
(pingcap/tiflow ``cdc/entry/mounter.go`` ``verifyChecksum``, pingcap/ticdc
``pkg/common/event/checksum.go``):

- **Column-level checksum** (TiDB's checksum V1, row header version 0): CRC32 (IEEE) over each
  stored column in column-id order, NULLs adding nothing, each value encoded as
  ``appendDatumForChecksum`` does (integers, ENUM, SET, BIT as little-endian uint64; floats as
  the float64 bits, Inf/NaN as 0; strings and bytes, DECIMAL, dates and times, JSON as a
  little-endian uint32 length and the text; VECTOR as TiDB serializes it). This is the value
  TiCDC writes in ``current``/``previous`` for every version, once the row verified.
- **Raw-bytes checksum** (TiDB's checksum V2 since v8.4, header version 2; version 1 is
  v8.3's): CRC32 over the row value in TiDB's row format v2 with the checksum flag, then the
  checksum header byte, then the encoded handle (version 2) or the row key (version 1). TiCDC
  checks it against the row; a row it fails is ``corrupted`` and TiCDC writes TiDB's stored
  value as ``current``.
"""

from __future__ import annotations

import re
import struct
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from tisink.codec.errors import CodecError
from tisink.codec.values.floats import to_float32
from tisink.codec.values.json_text import json_text
from tisink.codec.values.members import binary_bytes, enum_index, set_bitmask
from tisink.model.events import RowChangedEvent, RowChecksum
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
_BE_U64 = struct.Struct(">Q")
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
    bits = _LE_U64.unpack(_LE_F64.pack(v))[0]
    bits = bits | (1 << 63) if v >= 0 else ~bits & _U64
    return _BE_U64.pack(bits)


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
            precision = column.length or 10
            frac = max(column.decimal, 0)
            text = decimal_text(column, value)
            return bytes((precision, frac)) + decimal_bin(text, precision, frac)
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


def int_handle_column(table: TableInfo) -> ColumnInfo | None:
    """The integer primary key TiDB uses as the row handle (kept out of the row value)."""
    for index in table.indexes:
        if index.primary and len(index.columns) == 1:
            column = table.column_by_name[index.columns[0]]
            if column.family in (TypeFamily.INT, TypeFamily.BIGINT):
                return column
    return None


def row_value(table: TableInfo, image: Mapping[str, Any], *, version: int = V2) -> bytes:
    """The row value TiDB writes (row format v2, checksum flag set, the checksum header byte
    appended, the checksum itself not): what the raw-bytes checksum covers before the key."""
    handle_column = int_handle_column(table)
    columns = [c for c in table.stored_columns if c is not handle_column]
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
    return _BE_U64.pack((_signed(handle) & _U64) ^ (1 << 63))


def row_key(physical_table_id: int, handle: int) -> bytes:
    """TiDB ``tablecodec.EncodeRowKeyWithHandle``: ``t{table id}_r{handle}``."""
    return b"t" + int_handle_bytes(physical_table_id) + b"_r" + int_handle_bytes(handle)


def row_handle(table: TableInfo, image: Mapping[str, Any], handle: int | None = None) -> int:
    """The row's integer handle: its integer primary key, else ``handle`` (its _tidb_rowid)."""
    column = int_handle_column(table)
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
) -> int:
    """TiDB's raw-bytes checksum (checksum V2, header version 2; version 1: v8.3's, over the
    row key instead of the handle) of a row image."""
    if version not in (V2_ROW_KEY, V2):
        raise ChecksumError(f"raw-bytes checksum version {version}: TiDB has 1 and 2")
    row_handle_value = row_handle(table, image, handle)
    crc = zlib.crc32(row_value(table, image, version=version))
    if version == V2:
        return zlib.crc32(int_handle_bytes(row_handle_value), crc)
    table_id = table.table_id if physical_table_id is None else physical_table_id
    return zlib.crc32(row_key(table_id, row_handle_value), crc)


# --- what TiCDC carries ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Corruption:
    """Which image of a row TiCDC found corrupted (its checksum did not match the row)."""

    current: bool = True
    previous: bool = False


def stored_checksum(
    table: TableInfo, image: Mapping[str, Any], version: int, handle: int | None = None
) -> int:
    """The checksum TiDB keeps with the row: the column-level one (version 0) or the raw one."""
    if version == V1:
        return column_checksum(table, image)
    return raw_checksum(table, image, version=version, handle=handle)


def row_checksum(
    row: RowChangedEvent, version: int = V2, corruption: Corruption | None = None
) -> RowChecksum:
    """The ``checksum`` TiCDC attaches to ``row``: the column-level checksum of each image
    (0 for an image the row lacks), ``version`` as TiDB's row header has it.

    With ``corruption``, the named images are ones whose data TiCDC found not to match the
    checksum TiDB stored, and the checksum is what TiCDC's mounter then writes: ``corrupted``
    true and, for a V2 (raw-bytes) image, ``current``/``previous`` the checksum TiDB stored
    (the raw one, which is never the column-level one a consumer computes; should the two
    collide, or the raw one not be computable here, the column-level one with bits flipped);
    for a V1 image the column-level checksum of the row as delivered (TiCDC computed it from
    the data it received; only ``corrupted`` tells)."""
    if version not in VERSIONS:
        raise ChecksumError(f"checksum version {version}: TiDB has {list(VERSIONS)}")
    current = column_checksum(row.table, row.after) if row.after is not None else 0
    previous = column_checksum(row.table, row.before) if row.before is not None else 0
    if corruption is None or not (corruption.current or corruption.previous):
        return RowChecksum(version, False, current, previous)
    if version != V1:
        if corruption.current and row.after is not None:
            current = _stored_instead(row, row.after, version, current)
        if corruption.previous and row.before is not None:
            previous = _stored_instead(row, row.before, version, previous)
    return RowChecksum(version, True, current, previous)


def _stored_instead(
    row: RowChangedEvent, image: Mapping[str, Any], version: int, computed: int
) -> int:
    try:
        stored = raw_checksum(
            row.table, image, version=version, physical_table_id=row.physical_table_id
        )
    except ChecksumError:
        stored = computed
    return stored if stored not in (computed, 0) else corrupted_value(computed)


CORRUPTION_MASK = 0x5A5A5A5A


def corrupted_value(checksum: int) -> int:
    """A checksum that is certainly not ``checksum`` (nor 0, which TiCDC reads as "none")."""
    value = (checksum ^ CORRUPTION_MASK) & _U32
    return value or 1


def mismatches(row: RowChangedEvent) -> list[str]:
    """What a consumer verifying ``row.checksum`` finds (tiflow ``common.VerifyChecksum``):
    ``corrupted`` set, or an image whose column-level checksum is not the carried one (a
    carried 0 means "not enabled"). Empty when the row has no checksum or it holds."""
    checksum = row.checksum
    if checksum is None:
        return []
    found = []
    if checksum.corrupted:
        found.append("corrupted")
    for name, image, carried in (
        ("current", row.after, checksum.current),
        ("previous", row.before, checksum.previous),
    ):
        if carried == 0 or image is None:
            continue
        computed = column_checksum(row.table, image)
        if computed != carried:
            found.append(f"{name} checksum {carried} != {computed} computed from the row")
    return found


# --- a checksum carried in an encoded message -----------------------------------------------


@dataclass(frozen=True, slots=True)
class Carried:
    """A row checksum found in a message's bytes: ``value[start:end]`` holds it (``form``
    says how it is written, so ``rewritten`` can put another one in its place)."""

    checksum: RowChecksum
    start: int
    end: int
    form: str


_SIMPLE_JSON = re.compile(
    rb'"checksum":\{"version":(\d+),"corrupted":(true|false),"current":(\d+),"previous":(\d+)\}'
)
_VERSION_BYTES = {0x00: 0, 0x02: 1, 0x04: 2}  # zigzag ints 0, 1, 2
_DIGITS = frozenset(b"0123456789")
_CONFLUENT_HEADER = 5


def carried_simple_json(value: bytes) -> Carried | None:
    """The ``checksum`` object of a Simple JSON message (TiCDC's key order), if it has one."""
    if b'"checksum":{' not in value:
        return None
    match = _SIMPLE_JSON.search(value)
    if match is None:
        return None
    version, corrupted, current, previous = match.groups()
    checksum = RowChecksum(int(version), corrupted == b"true", int(current), int(previous))
    return Carried(checksum, match.start(), match.end(), "simple-json")


def carried_avro(value: bytes) -> Carried | None:
    """The trailing ``_tidb_row_level_checksum`` (digits), ``_tidb_corrupted``,
    ``_tidb_checksum_version`` of an Avro value in the Confluent wire format, if it ends so.

    The digits are found from the end: the string's length byte (zigzag: 2k for k digits, at
    most 20) is never a digit, and a digit byte is never such a length, so one k at most
    fits. ``previous`` is 0: TiCDC's Avro carries only the new image's checksum."""
    if len(value) < _CONFLUENT_HEADER + 4 or value[0] != 0:
        return None
    version = _VERSION_BYTES.get(value[-1])
    if version is None or value[-2] not in (0, 1):
        return None
    end = len(value) - 2
    for k in range(1, 11):
        start = end - k
        if start - 1 < _CONFLUENT_HEADER or value[start] not in _DIGITS:
            return None
        if value[start - 1] == 2 * k:
            current = int(value[start:end])
            if current > _U32:
                return None
            checksum = RowChecksum(version, value[-2] == 1, current, 0)
            return Carried(checksum, start - 1, len(value), "avro")
    return None


def rewritten(value: bytes, carried: Carried, checksum: RowChecksum) -> bytes:
    """``value`` with ``checksum`` written where ``carried`` was found, in its form."""
    if carried.form == "simple-json":
        new = (
            f'"checksum":{{"version":{checksum.version},'
            f'"corrupted":{"true" if checksum.corrupted else "false"},'
            f'"current":{checksum.current},"previous":{checksum.previous}}}'
        ).encode()
    else:
        digits = str(checksum.current).encode()
        new = bytes((2 * len(digits),)) + digits
        new += bytes((1 if checksum.corrupted else 0, 2 * checksum.version))
    return value[: carried.start] + new + value[carried.end :]
