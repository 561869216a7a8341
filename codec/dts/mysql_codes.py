"""MySQL column type codes and declared type text, as the DTS formats describe a column.

Tencent Avro and Alibaba Avro carry ``dataTypeNumber`` (the MySQL wire/binlog type code); Tencent
Protobuf and Tencent Avro carry ``originalType`` (the type as ``SHOW CREATE TABLE`` prints it).
Codes follow TiDB's own column types (``mysql.TypeXxx``), so TEXT columns are 249..252 like the
BLOBs they are stored as, and temporal types use the classic codes (7, 10, 11, 12), never the
binlog's fsp variants 17..19 (spec/dts-formats.md 4.4).
"""

from __future__ import annotations

from tisink.model.mysqltypes import DEFAULT_LENGTH
from tisink.model.table import ColumnInfo

DECIMAL = 0
TINY = 1
SHORT = 2
LONG = 3
FLOAT = 4
DOUBLE = 5
NULL = 6
TIMESTAMP = 7
LONGLONG = 8
INT24 = 9
DATE = 10
TIME = 11
DATETIME = 12
YEAR = 13
NEWDATE = 14
VARCHAR = 15
BIT = 16
VECTOR = 225
JSON = 245
NEWDECIMAL = 246
ENUM = 247
SET = 248
TINY_BLOB = 249
MEDIUM_BLOB = 250
LONG_BLOB = 251
BLOB = 252
VAR_STRING = 253
STRING = 254
GEOMETRY = 255

TYPE_CODES: dict[str, int] = {
    "tinyint": TINY,
    "smallint": SHORT,
    "mediumint": INT24,
    "int": LONG,
    "bigint": LONGLONG,
    "float": FLOAT,
    "double": DOUBLE,
    "decimal": NEWDECIMAL,
    "char": STRING,
    "binary": STRING,
    "varchar": VARCHAR,
    "varbinary": VARCHAR,
    "tinytext": TINY_BLOB,
    "tinyblob": TINY_BLOB,
    "text": BLOB,
    "blob": BLOB,
    "mediumtext": MEDIUM_BLOB,
    "mediumblob": MEDIUM_BLOB,
    "longtext": LONG_BLOB,
    "longblob": LONG_BLOB,
    "date": DATE,
    "datetime": DATETIME,
    "timestamp": TIMESTAMP,
    "time": TIME,
    "year": YEAR,
    "enum": ENUM,
    "set": SET,
    "bit": BIT,
    "json": JSON,
    "vector": VECTOR,
}
"""TiDB ``mysqlType`` name -> MySQL type code."""


def type_code(column: ColumnInfo) -> int:
    """The MySQL type code of ``column`` (``dataTypeNumber``)."""
    return TYPE_CODES[column.mysql_type]


_SIZED = frozenset({"char", "varchar", "binary", "varbinary", "bit"})
_DISPLAY_WIDTH = frozenset({"tinyint", "smallint", "mediumint", "int", "bigint", "year"})
_FRACTIONAL = frozenset({"datetime", "timestamp", "time"})
_SIGNED_NUMBERS = _DISPLAY_WIDTH - {"year"} | {"float", "double", "decimal"}


def _quoted(elements: tuple[str, ...]) -> str:
    return ",".join("'" + e.replace("'", "''") + "'" for e in elements)


def original_type(column: ColumnInfo) -> str:
    """The declared type text, e.g. ``int(10) unsigned``, ``varchar(20)``, ``decimal(10,2)``,
    ``datetime(6)``, ``enum('a','b')``: MySQL 5.7's ``SHOW CREATE TABLE`` spelling, display
    widths filled from TiDB's defaults when the schema gives none."""
    name = column.mysql_type
    if name in _DISPLAY_WIDTH:
        width = column.length or DEFAULT_LENGTH.get((name, column.unsigned or name == "year"), 0)
        text = f"{name}({width})" if width else name
    elif name == "decimal":
        precision = column.length or DEFAULT_LENGTH[("decimal", False)]
        text = f"decimal({precision},{column.decimal})"
    elif name in ("float", "double"):
        text = f"{name}({column.length},{column.decimal})" if column.decimal > 0 else name
    elif name in _SIZED:
        text = f"{name}({column.length or 1})"
    elif name in _FRACTIONAL:
        text = f"{name}({column.decimal})" if column.decimal > 0 else name
    elif name in ("enum", "set"):
        text = f"{name}({_quoted(column.elements)})"
    elif name == "vector" and column.length:
        text = f"vector({column.length})"
    else:
        text = name
    if column.unsigned and name in _SIGNED_NUMBERS:
        text += " unsigned"
    if column.zerofill:
        text += " zerofill"
    return text
