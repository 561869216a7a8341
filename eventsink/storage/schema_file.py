"""Schema files (TiCDC ``pkg/cloudstorage/schema_file.go``): one per table version, named
``schema_{version}_{checksum:010d}.json``, holding the table's columns and the DDL that made it.

The JSON is Go's ``json.MarshalIndent`` with four spaces; the checksum is the CRC-32 (IEEE) of
the same marshalling of the table, schema and columns sorted by name, without the version and
the DDL, so equal tables get equal checksums. Column types are TiDB's ``TypeToStr`` in upper
case (tisink's ``mysqlType`` names are those), with ``UNSIGNED``; precision and scale follow
TiCDC's ``fromTiColumnInfo``. ``Type`` is TiDB's DDL action number.
"""

from __future__ import annotations

import re
import zlib
from typing import Any

from tisink.codec.gojson import go_dumps
from tisink.eventsink.storage.paths import schema_file_path
from tisink.model.events import DDLEvent, DDLType
from tisink.model.mysqltypes import DEFAULT_LENGTH, TypeFamily
from tisink.model.table import ColumnInfo, TableInfo

SCHEMA_FILE_VERSION = 1
_INDENT = "    "
_PRECISION_FAMILIES = (
    TypeFamily.INT,
    TypeFamily.BIGINT,
    TypeFamily.BIT,
    TypeFamily.STRING,
    TypeFamily.BINARY,
    TypeFamily.YEAR,
)
_TIME_FAMILIES = (TypeFamily.DATETIME, TypeFamily.TIMESTAMP, TypeFamily.TIME)
_DEFAULT_FLEN = {"bit": 1, "char": 1, "binary": 1}

# TiDB's ActionType numbers (pkg/meta/model/job.go)
ACTION_CREATE_SCHEMA, ACTION_DROP_SCHEMA = 1, 2
ACTION_CREATE_TABLE, ACTION_DROP_TABLE = 3, 4
ACTION_ADD_COLUMN, ACTION_DROP_COLUMN = 5, 6
ACTION_ADD_INDEX, ACTION_DROP_INDEX = 7, 8
ACTION_TRUNCATE_TABLE, ACTION_MODIFY_COLUMN = 11, 12
ACTION_RENAME_TABLE = 14
_ACTIONS = {
    DDLType.CREATE: ACTION_CREATE_TABLE,
    DDLType.ERASE: ACTION_DROP_TABLE,
    DDLType.CINDEX: ACTION_ADD_INDEX,
    DDLType.DINDEX: ACTION_DROP_INDEX,
    DDLType.TRUNCATE: ACTION_TRUNCATE_TABLE,
    DDLType.RENAME: ACTION_RENAME_TABLE,
}
_ALTER_ACTIONS = (
    (re.compile(r"\bDROP\s+COLUMN\b", re.I), ACTION_DROP_COLUMN),
    (re.compile(r"\b(MODIFY|CHANGE)\b", re.I), ACTION_MODIFY_COLUMN),
    (re.compile(r"\bADD\b", re.I), ACTION_ADD_COLUMN),
)
_SCHEMA_DDL = re.compile(
    r"^\s*(CREATE|DROP)\s+(?:DATABASE|SCHEMA)\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?`?([^`\s;]+)`?",
    re.I,
)


def ddl_action(ddl: DDLEvent) -> int:
    """TiDB's action number of ``ddl`` (0 when tisink's DDL type does not tell it)."""
    action = _ACTIONS.get(ddl.ddl_type)
    if action is not None:
        return action
    if ddl.ddl_type is DDLType.ALTER:
        for pattern, number in _ALTER_ACTIONS:
            if pattern.search(ddl.query):
                return number
        return ACTION_MODIFY_COLUMN
    match = _SCHEMA_DDL.match(ddl.query)
    if match:
        return ACTION_CREATE_SCHEMA if match.group(1).upper() == "CREATE" else ACTION_DROP_SCHEMA
    return 0


def database_of(ddl: DDLEvent) -> str | None:
    """The database a CREATE/DROP DATABASE names; None for other DDLs."""
    match = _SCHEMA_DDL.match(ddl.query)
    return match.group(2) if match else None


def _scale_set(decimal: int, default: int) -> bool:
    return decimal not in (default, 0, -1)


def table_column(column: ColumnInfo, primary: bool, output_column_id: bool) -> dict[str, Any]:
    """TiCDC's ``TableCol`` in Go field order, empty fields left out."""
    family = column.family
    flen = column.length or DEFAULT_LENGTH.get(
        (column.mysql_type, False), _DEFAULT_FLEN.get(column.mysql_type, -1)
    )
    entry: dict[str, Any] = {}
    if output_column_id:
        entry["ColumnId"] = str(column.id)
    entry["ColumnName"] = column.name
    entry["ColumnType"] = column.mysql_type.upper() + (" UNSIGNED" if column.unsigned else "")
    if column.default is not None:
        entry["ColumnDefault"] = column.default
    if family in _TIME_FAMILIES:
        if _scale_set(column.decimal, 0):
            entry["ColumnScale"] = str(column.decimal)
    elif family in (TypeFamily.FLOAT, TypeFamily.DOUBLE):
        entry["ColumnPrecision"] = str(flen)
        if _scale_set(column.decimal, -1):
            entry["ColumnScale"] = str(column.decimal)
    elif family is TypeFamily.DECIMAL:
        entry["ColumnPrecision"] = str(flen)
        entry["ColumnScale"] = str(column.decimal)
    elif family in _PRECISION_FAMILIES:
        entry["ColumnPrecision"] = str(flen)
    if not column.nullable:
        entry["ColumnNullable"] = "false"
    if primary:
        entry["ColumnIsPk"] = "true"
    if family in (TypeFamily.ENUM, TypeFamily.SET) and column.elements:
        entry["ColumnElems"] = list(column.elements)
    return entry


def go_indent(value: Any, depth: int = 0) -> str:
    """Go's ``json.MarshalIndent(value, "", "    ")`` for dicts, lists and scalars."""
    pad = _INDENT * (depth + 1)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [
            f"{pad}{go_dumps(k).decode()}: {go_indent(v, depth + 1)}" for k, v in value.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + _INDENT * depth + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        items = [pad + go_indent(v, depth + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + _INDENT * depth + "]"
    return go_dumps(value).decode()


class SchemaFile:
    """The schema file of one table version (or a database's DDL when ``table`` is None)."""

    def __init__(
        self,
        schema: str,
        table: TableInfo | None,
        version: int,
        *,
        query: str = "",
        action: int = 0,
        output_column_id: bool = False,
        table_id: int = 0,
    ) -> None:
        self.schema = schema
        self.table_name = table.table if table is not None else ""
        self.table_id = table_id or (table.table_id if table is not None else 0)
        """The (physical) table id naming the file with ``use-table-id-as-path``: the rows'
        physical table's when their first rows write it, the table's for a DDL."""
        self.version = version
        self.query = query
        self.action = action
        self.columns: list[dict[str, Any]] | None = None
        if table is not None and table.columns:
            primary = {n for index in table.indexes if index.primary for n in index.columns}
            self.columns = [
                table_column(column, column.name in primary, output_column_id)
                for column in table.columns
            ]

    @property
    def total_columns(self) -> int:
        return len(self.columns or ())

    def to_json(self) -> bytes:
        document = {
            "Table": self.table_name,
            "Schema": self.schema,
            "Version": SCHEMA_FILE_VERSION,
            "TableVersion": self.version,
            "Query": self.query,
            "Type": self.action,
            "TableColumns": self.columns,
            "TableColumnsTotal": self.total_columns,
        }
        return go_indent(document).encode()

    def checksum(self) -> int:
        # TiCDC sorts a copy made with make(), which is [] rather than null when empty
        columns = sorted(self.columns or [], key=lambda c: c["ColumnName"].encode())
        payload = {
            "Table": self.table_name,
            "Schema": self.schema,
            "Version": 0,
            "TableColumns": columns,
            "TableColumnsTotal": self.total_columns,
        }
        return zlib.crc32(go_indent(payload).encode())

    @property
    def table_level(self) -> bool:
        """A table's schema file (ticdc: ``TotalColumns != 0``), not a database's."""
        return self.total_columns != 0

    def path(self, *, by_table_id: bool = False) -> str:
        """Where the file goes (ticdc ``SchemaFile.Path``): under the table id with
        ``by_table_id`` (``use-table-id-as-path``) when it is a table's."""
        table = self.table_name if self.table_level else ""
        table_id = self.table_id if by_table_id and self.table_level else 0
        return schema_file_path(self.schema, table, self.version, self.checksum(), table_id)
