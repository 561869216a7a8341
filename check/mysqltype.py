"""The MySQL type of a compared column, from the three places it can come from: the
``mysql_type`` text of the expected database's ``tidb_cdc.columns`` (SHOW CREATE TABLE spelling,
``decimal(10,2)``, ``int(11) unsigned``, ``enum('a','b')``), a feed's schema, or, when neither
knows the column, the SQL type the expected database reports."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import sqlalchemy.types as sqltypes

from tisink.check.errors import CheckError
from tisink.model.mysqltypes import TypeFamily, family_of, is_known_type
from tisink.model.table import ColumnInfo

_TYPE = re.compile(r"^\s*([a-z]+)\s*(?:\((.*)\))?((?:\s+[a-z]+)*)\s*$", re.IGNORECASE | re.DOTALL)
_QUOTED = re.compile(r"'((?:[^'\\]|''|\\.)*)'", re.DOTALL)
_UNESCAPE = re.compile(r"''|\\(.)", re.DOTALL)
_BACKSLASH = {"0": "\0", "n": "\n", "r": "\r", "t": "\t", "Z": "\x1a", "b": "\b"}


@dataclass(frozen=True)
class ColumnType:
    """What normalising a column's values needs to know of its type."""

    name: str
    """The MySQL type name (``decimal``), or the reflected SQL type's name."""
    family: TypeFamily
    length: int = 0
    scale: int = 0
    """DECIMAL's scale; DATETIME, TIMESTAMP and TIME: the fractional digits (fsp)."""
    unsigned: bool = False
    elements: tuple[str, ...] = ()
    """ENUM and SET members, in definition order."""


def _unquote(text: str) -> str:
    return _UNESCAPE.sub(lambda m: "'" if m.group(1) is None else _BACKSLASH.get(m[1], m[1]), text)


def parse_mysql_type(text: str) -> ColumnType:
    """``decimal(10,2)`` -> ColumnType('decimal', DECIMAL, 10, 2); CheckError when ``text`` is
    no MySQL type TiDB writes."""
    match = _TYPE.match(text)
    name = match[1].lower() if match else ""
    if match is None or not is_known_type(name):
        raise CheckError(f"unknown MySQL type {text!r} in tidb_cdc.columns")
    args, flags = match[2], match[3].lower().split()
    family = family_of(name)
    elements: tuple[str, ...] = ()
    length = scale = 0
    if args is not None and family in (TypeFamily.ENUM, TypeFamily.SET):
        elements = tuple(_unquote(m[1]) for m in _QUOTED.finditer(args))
    elif args:
        numbers = [part.strip() for part in args.split(",")]
        if not all(part.isdigit() for part in numbers) or len(numbers) > 2:
            raise CheckError(f"bad length in MySQL type {text!r}")
        if family in (TypeFamily.DATETIME, TypeFamily.TIMESTAMP, TypeFamily.TIME):
            scale = int(numbers[0])
        else:
            length = int(numbers[0])
            scale = int(numbers[1]) if len(numbers) == 2 else 0
    return ColumnType(name, family, length, scale, "unsigned" in flags, elements)


def from_column_info(col: ColumnInfo) -> ColumnType:
    """The type a feed's schema gives a column (``decimal`` is its fsp or scale)."""
    return ColumnType(
        col.mysql_type, col.family, col.length, col.decimal, col.unsigned, col.elements
    )


def from_reflected(sql_type: sqltypes.TypeEngine[Any]) -> ColumnType:
    """A best guess from the SQL type a database reports, for columns no schema describes:
    integers, exact and approximate numbers, dates and times, bytes, JSON; text otherwise."""
    name = type(sql_type).__name__.lower()
    checks: tuple[tuple[type[Any], TypeFamily], ...] = (
        (sqltypes.Integer, TypeFamily.BIGINT),
        (sqltypes.Float, TypeFamily.DOUBLE),
        (sqltypes.Numeric, TypeFamily.DECIMAL),
        (sqltypes.DateTime, TypeFamily.DATETIME),
        (sqltypes.Date, TypeFamily.DATE),
        (sqltypes.Time, TypeFamily.TIME),
        (sqltypes._Binary, TypeFamily.BINARY),
        (sqltypes.JSON, TypeFamily.JSON),
    )
    for sql_class, family in checks:
        if isinstance(sql_type, sql_class):
            fsp = 6 if family in (TypeFamily.DATETIME, TypeFamily.TIME) else 0
            return ColumnType(name, family, scale=fsp)
    return ColumnType(name, TypeFamily.STRING)
