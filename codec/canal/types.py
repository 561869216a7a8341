"""The ``mysqlType`` and ``sqlType`` (JDBC) of each column, as TiCDC's canal-json writes them.

``mysqlType`` is TiDB's ``TypeToStr`` name plus `` unsigned`` / `` zerofill`` (TiCDC
``GetMySQLType``); with ``content-compatible`` it is TiDB's ``ColumnInfo.GetTypeDesc()``, the
type with its length, scale or members as official Canal writes it. ``sqlType`` is TiCDC's
``MySQLType2JavaType`` (``java.sql.Types`` codes); for unsigned TINYINT, SMALLINT, INT and
BIGINT a value beyond the signed range promotes it to the next wider JDBC type, per row, as
Canal's ``LogEventConvert`` does (``formatColumnValue`` in ticdc's ``canal/helper.go``).
"""

from __future__ import annotations

from tisink.model.mysqltypes import DEFAULT_LENGTH
from tisink.model.table import ColumnInfo

BIT, TINYINT, SMALLINT, INTEGER, BIGINT = -7, -6, 5, 4, -5
REAL, DOUBLE, DECIMAL, CHAR, VARCHAR = 7, 8, 3, 1, 12
DATE, TIME, TIMESTAMP, BLOB, CLOB = 91, 92, 93, 2004, 2005

_JAVA_TYPES: dict[str, int] = {
    "tinyint": TINYINT,
    "smallint": SMALLINT,
    "mediumint": INTEGER,
    "int": INTEGER,
    "bigint": BIGINT,
    "float": REAL,
    "double": DOUBLE,
    "decimal": DECIMAL,
    "char": CHAR,
    "varchar": VARCHAR,
    "tinytext": CLOB,
    "text": CLOB,
    "mediumtext": CLOB,
    "longtext": CLOB,
    "binary": BLOB,
    "varbinary": BLOB,
    "tinyblob": BLOB,
    "blob": BLOB,
    "mediumblob": BLOB,
    "longblob": BLOB,
    "date": DATE,
    "datetime": TIMESTAMP,
    "timestamp": TIMESTAMP,
    "time": TIME,
    "year": VARCHAR,
    "enum": INTEGER,
    "set": BIT,
    "bit": BIT,
    "json": VARCHAR,
    "vector": VARCHAR,
}

PROMOTIONS: dict[str, tuple[int, int]] = {
    "tinyint": ((1 << 7) - 1, SMALLINT),
    "smallint": ((1 << 15) - 1, INTEGER),
    "int": ((1 << 31) - 1, BIGINT),
    "bigint": ((1 << 63) - 1, DECIMAL),
}
"""Unsigned types whose JDBC type widens for a value above the limit: (limit, wider type).
MEDIUMINT UNSIGNED stays INTEGER, as in TiCDC."""


def java_type(column: ColumnInfo) -> int:
    """The column's JDBC type before any per-value promotion (VARCHAR for anything unknown)."""
    return _JAVA_TYPES.get(column.mysql_type, VARCHAR)


def promotion(column: ColumnInfo) -> tuple[int, int] | None:
    """``(limit, wider type)`` when the column's JDBC type depends on its value."""
    if not is_unsigned(column):
        return None
    return PROMOTIONS.get(column.mysql_type)


def is_unsigned(column: ColumnInfo) -> bool:
    """TiDB's UnsignedFlag: ZEROFILL implies it on numeric columns."""
    return column.unsigned or (column.zerofill and column.mysql_type not in ("bit", "year"))


def mysql_type(column: ColumnInfo, content_compatible: bool = False) -> str:
    """The ``mysqlType`` text of a column."""
    name = column.mysql_type
    text = type_desc(column) if content_compatible else name
    if is_unsigned(column) and name not in ("bit", "year"):
        text += " unsigned"
    if column.zerofill and name != "year":
        text += " zerofill"
    return text


_DEFAULT_FLEN = {"bit": 1, "char": 1, "binary": 1, "year": 4}
_INTEGERS = ("bit", "tinyint", "smallint", "mediumint", "int", "bigint")
_FLEN_SHOWN = frozenset((*_INTEGERS, "varchar", "char", "binary", "varbinary", "year"))


def type_desc(column: ColumnInfo) -> str:
    """TiDB ``FieldType.CompactStr()``: lengths shown for integers, BIT, (VAR)CHAR/BINARY and
    YEAR; (length,scale) for DECIMAL always and for FLOAT/DOUBLE with a scale; the fraction
    digits of DATETIME/TIMESTAMP/TIME when not 0; the members of ENUM/SET."""
    name = column.mysql_type
    decimal = column.decimal if column.decimal > 0 else 0
    if name in ("enum", "set"):
        members = "','".join(_output_format(e) for e in column.elements)
        return f"{name}('{members}')"
    if name in ("datetime", "timestamp", "time"):
        return f"{name}({decimal})" if decimal else name
    if name in ("float", "double"):
        return f"{name}({_flen(column)},{decimal})" if decimal else name
    if name == "decimal":
        return f"{name}({_flen(column)},{decimal})"
    if name in _FLEN_SHOWN:
        return f"{name}({_flen(column)})"
    if name == "vector" and column.length > 0:
        return f"{name}({column.length})"
    return name


def _flen(column: ColumnInfo) -> int:
    if column.length > 0:
        return column.length
    default = _DEFAULT_FLEN.get(column.mysql_type)
    if default is not None:
        return default
    return DEFAULT_LENGTH.get((column.mysql_type, is_unsigned(column)), 0)


_OUTPUT_ESCAPES = str.maketrans({"\x00": "\\0", "'": "''", "\n": "\\n", "\r": "\\r"})


def _output_format(member: str) -> str:
    """TiDB ``format.OutputFormat``: a member as it appears between quotes."""
    return member.translate(_OUTPUT_ESCAPES)
