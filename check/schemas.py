"""What the expected side says of each table's columns: their MySQL types and the key.

Two sources, the first that knows a table wins: the ``tidb_cdc.columns`` meta table of the
expected database (tisink's SQL applier writes it: ``schema_name``, ``table_name``,
``position``, ``column_name``, ``mysql_type``, ``is_key``), and the last schema a feed gives
each table (for ``--expected FEED`` and ``--workload``). Columns neither knows are typed from
the SQL type the expected database reports (``mysqltype.from_reflected``)."""

from __future__ import annotations

import logging
import os
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import orjson

from tisink.check.database import META_SCHEMA, Database
from tisink.check.errors import CheckError
from tisink.check.mysqltype import ColumnType, from_column_info, parse_mysql_type
from tisink.check.naming import tidb_name
from tisink.feed.format.reader import feed_files
from tisink.model.errors import SchemaError
from tisink.model.events import DDLType
from tisink.model.table import TableInfo

log = logging.getLogger(__name__)

META_COLUMNS = ("schema_name", "table_name", "position", "column_name", "mysql_type", "is_key")


@dataclass(frozen=True)
class TableTypes:
    """A table's columns in order with their types, and its key columns (empty: none)."""

    columns: dict[str, ColumnType]
    key: tuple[str, ...]


def meta_types(db: Database) -> dict[str, TableTypes]:
    """The expected database's ``tidb_cdc.columns``, by ``schema.table``; empty without it."""
    rows = db.read_meta("columns", META_COLUMNS)
    if rows is None:
        log.info("%s has no %s.columns: types from the SQL types", db.url.masked, META_SCHEMA)
        return {}
    by_table: dict[str, list[tuple[int, str, str, bool]]] = defaultdict(list)
    for schema, table, position, column, mysql_type, is_key in rows:
        by_table[tidb_name(schema, table)].append((int(position), column, mysql_type, bool(is_key)))
    types: dict[str, TableTypes] = {}
    for name, columns in by_table.items():
        columns.sort()
        try:
            parsed = {column: parse_mysql_type(text) for _, column, text, _ in columns}
        except CheckError as err:
            raise CheckError(f"{db.url.masked}: table {name}: {err}") from None
        types[name] = TableTypes(parsed, tuple(c for _, c, _, key in columns if key))
    return types


def feed_types(path: str | os.PathLike[str]) -> dict[str, TableTypes]:
    """The last schema of every table a feed leaves standing, from its DDL records only
    (the rows are not parsed: the play that applied the feed has checked them)."""
    live: dict[str, TableInfo] = {}
    for file in feed_files(path):
        with Path(file).open("rb") as lines:
            for raw in lines:
                if b'"ddl"' in raw:
                    _apply_ddl(live, orjson.loads(raw))
    return {
        name: TableTypes(
            {col.name: from_column_info(col) for col in table.stored_columns}, table.handle_key
        )
        for name, table in live.items()
    }


def _apply_ddl(live: dict[str, TableInfo], record: dict[str, object]) -> None:
    if record.get("type") != "ddl":
        return
    try:
        table = _schema(record.get("table"))
        pre = _schema(record.get("preTable"))
    except SchemaError as err:
        raise CheckError(f"feed DDL at commitTs {record.get('commitTs')}: {err}") from None
    if pre is not None:
        live.pop(tidb_name(pre.schema, pre.table), None)
    if record.get("ddlType") == DDLType.ERASE.value:
        if table is not None:
            live.pop(tidb_name(table.schema, table.table), None)
    elif table is not None:
        live[tidb_name(table.schema, table.table)] = table


def _schema(obj: object) -> TableInfo | None:
    return TableInfo.from_dict(obj) if isinstance(obj, dict) else None
