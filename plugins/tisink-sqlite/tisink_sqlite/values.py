"""How feed values are stored in SQLite: a column's declared type and a value converter.

Row images hold values in the feed's form (``spec/feed-format.md``, "Values"). SQLite has
five storage classes, and a column's declared type only sets its *affinity*, so the declared
type is chosen to store each MySQL type without loss:

* integers, YEAR, BIT up to 63 bits: ``INTEGER``;
* unsigned BIGINT and BIT(64): ``TEXT`` of the decimal digits (SQLite integers are signed
  64-bit; a column holding both integers and text could not be matched by key reliably);
* FLOAT, DOUBLE: ``REAL``;
* DECIMAL: ``TEXT``, exactly as in the feed (``"3.50"``); a ``NUMERIC`` affinity would turn it
  into a lossy REAL;
* binary strings: ``BLOB`` of the bytes (the feed carries them base64-encoded);
* JSON and VECTOR: ``TEXT`` holding compact JSON (SQLite's JSON functions read it);
* SET: ``TEXT`` of the member names joined by commas, as MySQL prints it;
* everything else (text, ENUM, DATE, DATETIME, TIMESTAMP in UTC, TIME): ``TEXT`` as in the feed.
"""

from __future__ import annotations

import binascii
import json
from collections.abc import Callable
from typing import Any

from tisink.plugin import ColumnInfo, TypeFamily

Convert = Callable[[Any], Any]

INTEGER = "INTEGER"
REAL = "REAL"
TEXT = "TEXT"
BLOB = "BLOB"

_INTEGER_FAMILIES = (TypeFamily.INT, TypeFamily.YEAR)
_REAL_FAMILIES = (TypeFamily.FLOAT, TypeFamily.DOUBLE)


def _wide(col: ColumnInfo) -> bool:
    """Values may not fit SQLite's signed 64-bit integers."""
    family = col.family
    return (family is TypeFamily.BIGINT and col.unsigned) or (
        family is TypeFamily.BIT and (col.length or 1) >= 64
    )


def declared_type(col: ColumnInfo) -> str:
    """The SQLite type name (hence affinity) of ``col``."""
    family = col.family
    if _wide(col):
        return TEXT
    if family in _INTEGER_FAMILIES or family in (TypeFamily.BIGINT, TypeFamily.BIT):
        return INTEGER
    if family in _REAL_FAMILIES:
        return REAL
    if family is TypeFamily.BINARY:
        return BLOB
    return TEXT


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _set_text(value: Any) -> str:
    return ",".join(value)


def _number_text(value: Any) -> str:
    return value if type(value) is str else str(value)


def _bytes(value: Any) -> bytes:
    return binascii.a2b_base64(value, strict_mode=True)


def converter(col: ColumnInfo) -> Convert | None:
    """Feed value -> SQLite value for the non-NULL values of ``col``; None when they are
    stored as they come (integers, reals, text)."""
    family = col.family
    if _wide(col) or family is TypeFamily.DECIMAL:
        return _number_text
    if family is TypeFamily.BINARY:
        return _bytes
    if family is TypeFamily.SET:
        return _set_text
    if family in (TypeFamily.JSON, TypeFamily.VECTOR):
        return _json_text
    return None


def sql_literal(col: ColumnInfo, value: Any) -> str:
    """``value`` (feed form) as an SQL literal for a DEFAULT clause."""
    convert = converter(col)
    stored = convert(value) if convert is not None and value is not None else value
    if stored is None:
        return "NULL"
    if isinstance(stored, bool):
        return str(int(stored))
    if isinstance(stored, int | float):
        return repr(stored)
    if isinstance(stored, bytes):
        return f"X'{stored.hex()}'"
    text = str(stored).replace("'", "''")
    return f"'{text}'"
