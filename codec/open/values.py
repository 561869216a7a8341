"""Column values as ticdc's Open Protocol writes them (``open/codec.go`` ``writeColumnFieldValue``).

``converter_for`` gives, once per column, the function from a non-NULL feed value to what
orjson writes for it; the JSON writer is json-iterator's (``codec.debezium.jsonwriter``):

* integers, YEAR, BIT (the bits as a number), ENUM (1-based index), SET (bitmask): numbers;
* FLOAT / DOUBLE: json-iterator's float32 / float64 text;
* DECIMAL, DATE, DATETIME, TIME, JSON, VECTOR: TiDB's text; TIMESTAMP in the sink's zone;
* CHAR / VARCHAR: the text; BINARY / VARBINARY: Go's ``strconv.Quote`` of the bytes without
  its quotes; TEXT and BLOB types (TiDB's blob types): the base64 of the bytes.

A bad value raises one of ``codec.values.checks.VALUE_ERRORS``; the row renderer names the table
and column.
"""

from __future__ import annotations

import binascii
import datetime
import re
from collections.abc import Callable
from typing import Any

from tisink.codec.debezium.jsonwriter import double, single
from tisink.codec.errors import CodecError
from tisink.codec.gojson import LONE_SURROGATE
from tisink.codec.values import (
    binary_bytes,
    enum_index,
    enum_indexes,
    json_text,
    set_mask,
    timestamp_texts,
    vector_text,
)
from tisink.codec.values.checks import as_number, as_text, decimal_text
from tisink.model.mysqltypes import INTEGER_RANGES, TypeFamily
from tisink.model.table import ColumnInfo

Converter = Callable[[Any], Any]

"""What a bad row value raises inside a converter."""

TEXT_TYPES = frozenset({"tinytext", "text", "mediumtext", "longtext"})
BLOB_TYPES = frozenset({"tinyblob", "blob", "mediumblob", "longblob"})

_PRINTABLE_ASCII = re.compile(rb"[ !#-\[\]-~]*")
"""Bytes ``strconv.Quote`` writes as they are: printable ASCII but ``"`` and ``\\``."""
_SHORT = {7: "\\a", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 11: "\\v"}


class _QuoteTable(dict[int, str]):
    """``str.translate`` table of ``strconv.Quote``, filled per code point on first sight."""

    def __missing__(self, code: int) -> str:
        ch = chr(code)
        if ch == '"' or ch == "\\":
            text = "\\" + ch
        elif 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8 (surrogateescape)
            text = f"\\x{code - 0xDC00:02x}"
        elif ch.isprintable():
            text = ch
        elif code in _SHORT:
            text = _SHORT[code]
        elif code < 0x20 or code == 0x7F:
            text = f"\\x{code:02x}"
        elif code < 0x10000:
            text = f"\\u{code:04x}"
        else:
            text = f"\\U{code:08x}"
        self[code] = text
        return text


_QUOTE_TABLE = _QuoteTable()


def go_quote(raw: bytes) -> str:
    """Go's ``strconv.Quote(string(raw))`` without the surrounding quotes: printable runes as
    they are, ``\\a``-style escapes, ``\\xNN`` for other bytes below 0x80 and for bytes that
    are not UTF-8, ``\\uNNNN`` / ``\\UNNNNNNNN`` for unprintable runes. Go's ``IsPrint`` and
    Python's ``isprintable`` agree: letters, marks, numbers, punctuation, symbols, ASCII space.
    Bytes that are not UTF-8 decode to lone surrogates (``surrogateescape``); one
    ``str.translate`` then writes every rune."""
    if _PRINTABLE_ASCII.fullmatch(raw):
        return raw.decode("ascii")
    return raw.decode("utf-8", "surrogateescape").translate(_QUOTE_TABLE)


def _integer(column: ColumnInfo) -> Converter:
    if column.family is TypeFamily.YEAR:
        low, high = 0, 2155
    else:
        signed_min, signed_max, unsigned_max = INTEGER_RANGES[column.mysql_type]
        low, high = (0, unsigned_max) if column.unsigned else (signed_min, signed_max)

    def convert(v: Any) -> int:
        if type(v) is not int:
            raise TypeError(f"want an integer, got {type(v).__name__}")
        if not low <= v <= high:
            raise ValueError(f"{v} is out of range for {column.mysql_type}")
        return v

    return convert


def _bit(v: Any) -> int:
    if type(v) is int and 0 <= v < 1 << 64:
        return v
    raise ValueError(f"want an unsigned integer, got {v!r}")


def _utf8(v: Any) -> bytes:
    """A TEXT value's bytes; a lone surrogate, which no Go string holds, becomes U+FFFD."""
    text = as_text(v)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return LONE_SURROGATE.sub("\ufffd", text).encode("utf-8")


def _base64(raw: bytes) -> str:
    return binascii.b2a_base64(raw, newline=False).decode("ascii")


def _bytes_converter(column: ColumnInfo) -> Converter:
    if column.mysql_type in BLOB_TYPES:
        return lambda v: _base64(binary_bytes(column, as_text(v)))
    return lambda v: go_quote(binary_bytes(column, as_text(v)))


def _members(column: ColumnInfo) -> Converter:
    if column.family is TypeFamily.ENUM:
        indexes = enum_indexes(column)
        return lambda v: indexes[v] if v in indexes else enum_index(column, v)
    return set_mask(column)


def converter_for(column: ColumnInfo, tz: datetime.tzinfo) -> Converter:
    """The function from a non-NULL feed value to the JSON value of ``column``."""
    family = column.family
    if family in (TypeFamily.INT, TypeFamily.BIGINT, TypeFamily.YEAR):
        return _integer(column)
    if family is TypeFamily.STRING:
        if column.mysql_type in TEXT_TYPES:
            return lambda v: _base64(_utf8(v))
        return as_text
    if family in (TypeFamily.DATE, TypeFamily.DATETIME, TypeFamily.TIME):
        return as_text
    if family is TypeFamily.FLOAT:
        return lambda v: single(as_number(v))
    if family is TypeFamily.DOUBLE:
        return lambda v: double(as_number(v))
    if family is TypeFamily.DECIMAL:
        return decimal_text
    if family is TypeFamily.BINARY:
        return _bytes_converter(column)
    if family is TypeFamily.TIMESTAMP:
        texts = timestamp_texts(tz)
        return lambda v: texts(as_text(v))
    if family in (TypeFamily.ENUM, TypeFamily.SET):
        return _members(column)
    if family is TypeFamily.BIT:
        return _bit
    if family is TypeFamily.JSON:
        return json_text
    if family is TypeFamily.VECTOR:
        return vector_text
    raise CodecError(f"column {column.name!r}: no Open Protocol value for {column.mysql_type}")
