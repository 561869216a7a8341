"""Column values as Tencent DTS ``Data``: which ``DataType``, which charset, and the value bytes.

The seed's DataType table (spec/dts-formats.md 2.5) fixes the common cases. The undocumented
ones are decided here, so a consumer that follows the demo (``sv`` as is, STRING decoded with
``charset``, BYTES as hex) reads what MySQL would show:

* BIT: INT64, ``sv`` the bits as an unsigned decimal number (``b'101'`` is ``5``).
* YEAR: INT64, ``sv`` the year (``2024``).
* FLOAT / DOUBLE: ``sv`` in Go's shortest round-trip text (as every TiCDC protocol).
* DATE, DATETIME, TIME: STRING, ``bv`` MySQL's text, fractional seconds printed with exactly the
  column's fsp digits (``datetime(3)`` -> ``.120``, ``datetime`` -> none); no charset, since
  MySQL gives temporal types none and the text is ASCII.
* TIMESTAMP: as DATETIME, moved into the changefeed's ``time-zone`` and followed by that
  instant's offset (``2021-05-17 07:22:42 +00:00``); the zero timestamp keeps ``+00:00``.
* CHAR, VARCHAR and the TEXT types: STRING with the column's charset, ``bv`` the text in it.
  TEXT is stored as a BLOB in the binlog but has a charset, and a charset is what tells
  STRING from BYTES here.
* ENUM / SET: STRING with the column's charset, ``bv`` the member name(s), SET joined by ",".
* BINARY, VARBINARY and the BLOB types: BYTES (the binary charset makes them bytes, as Tencent
  Avro's BinaryObject); ``binary(N)`` padded to N bytes as TiDB stores it.
* JSON: BYTES, TiDB's JSON text. VECTOR: BYTES, TiDB's vector text ``[1,2.5]``.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from tisink.codec.dts.charsets import python_codec
from tisink.codec.dts.tencent.enums import DataType
from tisink.codec.errors import CodecError
from tisink.codec.values import (
    binary_bytes,
    float32_text,
    float64_text,
    json_text,
    vector_text,
)
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo

ToBytes = Callable[[Any], bytes]

_SIGNED = {
    "tinyint": DataType.INT8,
    "smallint": DataType.INT16,
    "mediumint": DataType.INT32,
    "int": DataType.INT32,
    "bigint": DataType.INT64,
}
_UNSIGNED = {
    "tinyint": DataType.UINT8,
    "smallint": DataType.UINT16,
    "mediumint": DataType.UINT32,
    "int": DataType.UINT32,
    "bigint": DataType.UINT64,
}


def integer_bytes(value: Any) -> bytes:
    """An integer's decimal text (``render`` inlines it, so keep the two identical)."""
    return b"%d" % value


def utf8_bytes(value: Any) -> bytes:
    """Text as UTF-8 (``render`` inlines it, so keep the two identical)."""
    return value.encode()


def decimal_bytes(value: Any) -> bytes:
    """A DECIMAL's text (``render`` inlines it, so keep the two identical)."""
    return str(value).encode()


def float64_bytes(value: Any) -> bytes:
    """A DOUBLE in Go's shortest text (``render`` inlines it, so keep the two identical)."""
    return float64_text(value).encode()


def _fraction(fsp: int) -> Callable[[str], str]:
    """MySQL's text of a temporal value: exactly ``fsp`` fraction digits."""

    def fix(text: str) -> str:
        head, _, fraction = text.partition(".")
        if fsp == 0:
            return head
        return head + "." + (fraction + "000000")[:fsp]

    return fix


def _temporal(column: ColumnInfo) -> ToBytes:
    if column.family is TypeFamily.DATE:
        return utf8_bytes
    fix = _fraction(column.decimal)
    return lambda value: fix(value).encode()


def _timestamp(column: ColumnInfo, tz: datetime.tzinfo) -> ToBytes:
    """UTC text moved into ``tz`` with its offset. The offset is looked up once per minute of
    UTC time (zone rules change on whole minutes), then applied by plain arithmetic: much
    cheaper than ``astimezone`` per value."""
    fix = _fraction(column.decimal)
    if tz is datetime.UTC:
        return lambda value: (fix(value) + " +00:00").encode()
    offsets: dict[str, tuple[datetime.timedelta, str]] = {}

    def render(value: str) -> bytes:
        text = fix(value)
        if text.startswith(_ZERO_DATE):
            return (text + " +00:00").encode()
        head, dot, fraction = text.partition(".")
        try:
            moment = datetime.datetime.fromisoformat(head)
        except ValueError as err:
            raise CodecError(f"column {column.name!r}: bad timestamp {value!r}") from err
        minute = head[:16]
        found = offsets.get(minute)
        if found is None:
            offset = moment.replace(tzinfo=datetime.UTC).astimezone(tz).utcoffset()
            found = (offset or _NO_OFFSET, offset_text(offset or _NO_OFFSET))
            if len(offsets) >= _OFFSET_CACHE:
                offsets.clear()
            offsets[minute] = found
        local = moment + found[0]
        return f"{local.isoformat(' ')}{dot}{fraction} {found[1]}".encode()

    return render


_ZERO_DATE = "0000-00-00"
_NO_OFFSET = datetime.timedelta(0)
_OFFSET_CACHE = 4096


def offset_text(offset: datetime.timedelta) -> str:
    """``+08:00`` / ``-04:00``: whole minutes of a UTC offset."""
    minutes = int(offset.total_seconds()) // 60
    sign = "-" if minutes < 0 else "+"
    hours, minutes = divmod(abs(minutes), 60)
    return f"{sign}{hours:02d}:{minutes:02d}"


def _set_text(value: Any) -> bytes:
    return (value if isinstance(value, str) else ",".join(value)).encode()


def data_kind(column: ColumnInfo, tz: datetime.tzinfo) -> tuple[DataType, str, ToBytes]:
    """``(DataType, charset, value -> bytes)`` of a column; the bytes go to ``sv`` for the
    number types and to ``bv`` for STRING and BYTES."""
    family = column.family
    name = column.mysql_type
    if family in (TypeFamily.INT, TypeFamily.BIGINT):
        return (_UNSIGNED if column.unsigned else _SIGNED)[name], "", integer_bytes
    if family in (TypeFamily.BIT, TypeFamily.YEAR):
        return DataType.INT64, "", integer_bytes
    if family is TypeFamily.FLOAT:
        return DataType.FLOAT32, "", lambda v: float32_text(v).encode()
    if family is TypeFamily.DOUBLE:
        return DataType.FLOAT64, "", float64_bytes
    if family is TypeFamily.DECIMAL:
        return DataType.DECIMAL, "", decimal_bytes
    if family in (TypeFamily.STRING, TypeFamily.ENUM, TypeFamily.SET):
        codec = python_codec(column.charset)
        if family is TypeFamily.SET:
            to_text: ToBytes = _set_text if codec == "utf-8" else _encoded(_set_text, codec)
        else:
            to_text = utf8_bytes if codec == "utf-8" else _encoded(utf8_bytes, codec)
        return DataType.STRING, column.charset, to_text
    if family is TypeFamily.BINARY:
        return DataType.BYTES, "", lambda v: binary_bytes(column, v)
    if family in (TypeFamily.DATE, TypeFamily.DATETIME, TypeFamily.TIME):
        return DataType.STRING, "", _temporal(column)
    if family is TypeFamily.TIMESTAMP:
        return DataType.STRING, "", _timestamp(column, tz)
    if family is TypeFamily.JSON:
        return DataType.BYTES, "", lambda v: json_text(v).encode()
    if family is TypeFamily.VECTOR:
        return DataType.BYTES, "", lambda v: vector_text(v).encode()
    raise CodecError(f"column {column.name!r}: no DTS data type for {name}")


def _encoded(render: ToBytes, codec: str) -> ToBytes:
    """``render`` producing UTF-8, re-encoded into ``codec``."""
    return lambda value: render(value).decode().encode(codec)
