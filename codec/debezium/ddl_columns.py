"""Column descriptions inside DDL ``tableChanges`` (TiCDC ``EncodeDDLEvent`` and ``helper.go``).

Debezium's ``io.debezium.connector.schema.Column``: the JDBC type, the MySQL type name and
expression, charset, length and scale as TiCDC derives them from TiDB's field type
(``getLen``, ``getScale``, ``getExpressionAndName``, ``MySQLType2JdbcType``).
"""

from __future__ import annotations

from typing import Any

from tisink.codec.debezium.jsonwriter import Fragment, float64_json
from tisink.codec.values import bit_default_number
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo, TableInfo

# java.sql.Types codes per TiDB type (TiCDC ``MySQLType2JdbcType``)
_JDBC: dict[str, int] = {
    "tinyint": 5,
    "smallint": 5,
    "mediumint": 4,
    "int": 4,
    "year": 4,
    "float": 6,
    "double": 8,
    "decimal": 3,
    "timestamp": 2014,
    "datetime": 93,
    "bigint": -5,
    "date": 91,
    "time": 92,
    "enum": 1,
    "set": 1,
    "tinyblob": 2004,
    "blob": 2004,
    "mediumblob": 2004,
    "longblob": 2004,
    "varbinary": -3,
    "char": 1,
    "binary": -2,
    "bit": -7,
    "json": 1111,
}
_BARE_NAMES = frozenset(("year", "bit", "varchar", "varbinary", "char", "binary", "decimal"))
_DEFAULT_FLEN = {
    "bit": 1,
    "varchar": 5,
    "varbinary": 5,
    "char": 1,
    "binary": 1,
    "bigint": 20,
    "float": 12,
    "double": 22,
    "tinyint": 4,
    "smallint": 6,
    "mediumint": 9,
    "int": 11,
}
_CHARSET_FAMILIES = frozenset(
    (
        TypeFamily.TIMESTAMP,
        TypeFamily.TIME,
        TypeFamily.DECIMAL,
        TypeFamily.STRING,
        TypeFamily.BINARY,
        TypeFamily.ENUM,
        TypeFamily.SET,
    )
)


def _length(column: ColumnInfo) -> int | None:
    """TiCDC ``getLen``: fsp for time types, Flen where it is not TiDB's default, None else."""
    name, flen = column.mysql_type, column.length
    if name in ("timestamp", "time", "datetime"):
        return column.decimal
    if name in ("year", "decimal"):
        return flen
    if name == "set":
        return 2 * len(column.elements) - 1
    if name == "enum":
        return 1
    if name == "vector":
        return flen or None  # the model's 0 is TiDB's unspecified -1
    default = _DEFAULT_FLEN.get(name)
    if default is None:
        return None
    if name in ("tinyint", "smallint", "mediumint", "int"):
        default -= column.unsigned
        default += name == "tinyint" and column.zerofill
    return flen if flen != default else None


def _scale(column: ColumnInfo) -> int | None:
    if column.family is TypeFamily.DECIMAL:
        return column.decimal
    if column.family in (TypeFamily.FLOAT, TypeFamily.DOUBLE) and column.decimal > 0:
        return column.decimal
    return None


def type_name_and_expression(column: ColumnInfo) -> tuple[str, str]:
    """TiCDC ``getExpressionAndName``: ``(typeName, typeExpression)``."""
    prefix = column.mysql_type.upper()
    if column.mysql_type in _BARE_NAMES:
        return prefix, prefix
    suffix = ""
    if column.family is TypeFamily.DOUBLE and column.decimal > 0:
        suffix = f"({column.length},{column.decimal})"
    elif column.family is TypeFamily.VECTOR and column.length:
        suffix = f"({column.length})"
    flags = " UNSIGNED ZEROFILL" if column.zerofill else " UNSIGNED" if column.unsigned else ""
    return prefix + flags, prefix + suffix + flags


def _bit_text(number: int, width: int) -> str:
    """TiCDC ``parseBit`` of the DEFAULT's bytes: the first byte in ``width % 8`` digits at
    least, every further byte in 8."""
    raw = number.to_bytes((width + 7) // 8, "big")
    if not raw:
        return ""
    first = format(raw[0], "b").zfill(width % 8)
    return first + "".join(format(byte, "08b") for byte in raw[1:])


def _default_expression(column: ColumnInfo) -> Any:
    default = column.default
    if default is None:
        return None
    if column.family is TypeFamily.BIT:
        number = bit_default_number(default)
        return None if number is None else _bit_text(number, column.length or 1)
    if isinstance(default, str):
        if default.upper() == "CURRENT_TIMESTAMP":
            return "1970-01-01 00:00:00"
        return None if default == "<nil>" else default
    return default


def column_change(column: ColumnInfo, position: int) -> dict[str, Any]:
    """One ``columns`` element, in TiCDC's write order."""
    name, expression = type_name_and_expression(column)
    scale = _scale(column)
    charset = column.charset if column.family in _CHARSET_FAMILIES else "binary"
    jdbc = _JDBC.get(column.mysql_type, 12)  # text types and everything else: VARCHAR
    return {
        "name": column.name,
        "jdbcType": jdbc,
        "nativeType": None,
        "comment": None,
        "defaultValueExpression": _default_expression(column),
        "enumValues": [f"'{e}'" for e in column.elements] if column.elements else None,
        "typeName": name,
        "typeExpression": expression,
        "charsetName": None if charset == "binary" else charset,
        "length": _length(column),
        "scale": None if scale is None else Fragment(float64_json(float(scale))),
        "position": position,
        "optional": column.nullable,
        # the model carries no AUTO_INCREMENT / ON UPDATE flags, which set both in TiCDC
        "autoIncremented": False,
        "generated": False,
    }


def primary_key_names(table: TableInfo) -> list[str]:
    for index in table.indexes:
        if index.primary:
            return list(index.columns)
    return []


def table_change(table: TableInfo) -> dict[str, Any]:
    """The ``table`` object of a change. TiDB's default charset stands for the table's, which
    the model does not keep."""
    return {
        "defaultCharsetName": "utf8mb4",
        "primaryKeyColumnNames": primary_key_names(table),
        "columns": [column_change(c, p + 1) for p, c in enumerate(table.columns)],
        "comment": None,
    }
