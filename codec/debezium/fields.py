"""Column entries of the Debezium Connect schema (TiCDC ``writeDebeziumFieldSchema``).

An entry is ``[tidb_type,] type, optional, [name, version, [parameters],] field, [default]``
in that order (spec/debezium.md 1.3 and 2). The ``default`` attribute (v8.5+) is TiDB's stored
DEFAULT text read the way TiCDC reads it per type; the model's BIT default is already a number
(the Simple ``tableSchema`` convention), so it is taken as the value TiCDC would parse.
"""

from __future__ import annotations

import binascii
from typing import Any

from tisink.codec.debezium import temporal
from tisink.codec.debezium.jsonwriter import Fragment, dumps, float64_json
from tisink.codec.names import escape_enum_option
from tisink.codec.values import bit_default_number
from tisink.codec.values.checks import VALUE_ERRORS
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo

_INT_TYPES = {"tinyint": "int16", "mediumint": "int32", "bigint": "int64"}
_NO_UNSIGNED_SUFFIX = frozenset(
    ("year", "bit", "varchar", "varbinary", "char", "binary", "decimal")
)
_LOGICAL: dict[TypeFamily, str] = {
    TypeFamily.DATE: "io.debezium.time.Date",
    TypeFamily.TIME: "io.debezium.time.MicroTime",
    TypeFamily.TIMESTAMP: "io.debezium.time.ZonedTimestamp",
    TypeFamily.YEAR: "io.debezium.time.Year",
    TypeFamily.JSON: "io.debezium.data.Json",
}


def tidb_type(column: ColumnInfo) -> str:
    """TiCDC ``getTiDBType``: the type name with `` unsigned`` except for the types whose
    name TiDB prints bare."""
    if column.unsigned and column.mysql_type not in _NO_UNSIGNED_SUFFIX:
        return column.mysql_type + " unsigned"
    return column.mysql_type


def _connect_type(column: ColumnInfo) -> str:
    family, name = column.family, column.mysql_type
    if family in (TypeFamily.INT, TypeFamily.BIGINT):
        if name == "smallint":
            return "int32" if column.unsigned else "int16"
        if name == "int":
            return "int64" if column.unsigned else "int32"
        return _INT_TYPES[name]
    if family is TypeFamily.FLOAT:
        # FLOAT(M,D) is double since v8.5.5; the model keeps no "unspecified" marker, so a
        # declared scale of 0 reads as plain FLOAT.
        return "double" if column.decimal > 0 else "float"
    if family in (TypeFamily.DOUBLE, TypeFamily.DECIMAL):
        return "double"
    if family in (TypeFamily.DATE, TypeFamily.YEAR):
        return "int32"
    if family in (TypeFamily.DATETIME, TypeFamily.TIME):
        return "int64"
    if family is TypeFamily.BIT:
        return "boolean" if (column.length or 1) == 1 else "bytes"
    return "string"


def _logical(column: ColumnInfo) -> tuple[str | None, dict[str, str] | None]:
    """The Connect logical name and parameters of ``column``, if it has one."""
    family = column.family
    if family is TypeFamily.DATETIME:
        return (
            "io.debezium.time.Timestamp"
            if column.decimal <= 3
            else "io.debezium.time.MicroTimestamp"
        ), None
    if family is TypeFamily.BIT and (column.length or 1) > 1:
        return "io.debezium.data.Bits", {"length": str(column.length)}
    if family is TypeFamily.ENUM:
        allowed = ",".join(escape_enum_option(e) for e in column.elements)
        return "io.debezium.data.Enum", {"allowed": allowed}
    if family is TypeFamily.SET:
        return "io.debezium.data.EnumSet", {"allowed": ",".join(column.elements)}
    if family is TypeFamily.VECTOR:
        return "io.debezium.data.TiDBVectorFloat32", None
    return _LOGICAL.get(family), None


def field_entry(column: ColumnInfo, tidb_extension: bool) -> dict[str, Any]:
    """The schema entry of ``column`` as an ordered dict."""
    entry: dict[str, Any] = {}
    if tidb_extension:
        entry["tidb_type"] = tidb_type(column)
    entry["type"] = _connect_type(column)
    entry["optional"] = column.nullable
    name, parameters = _logical(column)
    if name is not None:
        entry["name"] = name
        if column.family is not TypeFamily.VECTOR:
            entry["version"] = 1
        if parameters is not None:
            entry["parameters"] = parameters
    entry["field"] = column.name
    if column.default is not None:
        try:
            default = _schema_default(column, column.default)
        except VALUE_ERRORS:
            default = _ABSENT
        if default is not _ABSENT:
            entry["default"] = default
    return entry


def field_entry_bytes(column: ColumnInfo, tidb_extension: bool) -> bytes:
    return dumps(field_entry(column, tidb_extension))


_ABSENT = object()


def _schema_default(column: ColumnInfo, default: Any) -> Any:
    """The ``default`` attribute, or ``_ABSENT`` where TiCDC writes none."""
    family = column.family
    if family is TypeFamily.BIT:
        number = bit_default_number(default)
        width = column.length or 1
        if width == 1:
            return number != 0
        raw = (number or 0).to_bytes(8, "little")[: (width + 7) // 8]
        return binascii.b2a_base64(raw, newline=False).decode()
    text = default if isinstance(default, str) else str(default)
    if family in (TypeFamily.INT, TypeFamily.BIGINT, TypeFamily.FLOAT, TypeFamily.DOUBLE):
        return Fragment(float64_json(float(text)))
    if family is TypeFamily.DECIMAL:
        return Fragment(float64_json(float(text)))
    if family is TypeFamily.YEAR:
        year = float(text)
        year += 2000 if year < 70 else 1900 if year < 100 else 0
        return Fragment(float64_json(year))
    if family is TypeFamily.DATE:
        days = temporal.date_days(text)
        if days is None:
            return _ABSENT if column.nullable else 0
        return days
    if family is TypeFamily.DATETIME:
        return _datetime_default(column, text)
    if family is TypeFamily.TIMESTAMP:
        return _timestamp_default(column, text)
    if family is TypeFamily.TIME:
        return temporal.time_micros(text)
    return text


def _datetime_default(column: ColumnInfo, text: str) -> Any:
    if text.upper() == "CURRENT_TIMESTAMP":
        return 0
    micros = temporal.default_micros(text, column.decimal)
    if micros is None:
        # unreadable text is 0; a readable one off the calendar (zero date) only if NOT NULL
        return 0 if not temporal.datetime_shaped(text) or not column.nullable else _ABSENT
    return micros // 1000 if column.decimal <= 3 else micros


def _timestamp_default(column: ColumnInfo, text: str) -> Any:
    epoch_or_absent = _ABSENT if column.nullable else temporal.ZERO_ZONED
    if text.upper() == "CURRENT_TIMESTAMP":
        return epoch_or_absent
    micros = temporal.default_micros(text, column.decimal)
    if micros is None:
        return 0 if not temporal.datetime_shaped(text) else epoch_or_absent
    wall = temporal.micros_text(micros) if micros >= 0 else ""
    return temporal.zoned_timestamp(wall, column.decimal) or epoch_or_absent
