"""The state a change feed leaves in a database, computed from the feed alone, and a check that
a SQLite file holds it.

``final_state`` applies each row change to a dict per table keyed by primary key (INSERT and
UPDATE store the after image, DELETE removes the key) and follows the DDLs (CREATE, TRUNCATE,
RENAME, DROP; ALTER gives kept rows the added columns' defaults and drops removed columns).
It shares no code with the plugin: the storage rules below are written from the plugin's
documented type mapping, not imported from it.
"""

from __future__ import annotations

import base64
import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from tisink.feed.records import FeedDDL, FeedRecord, FeedRow
from tisink.model.events import DDLType
from tisink.model.table import ColumnInfo, TableInfo

Cell = tuple[ColumnInfo, Any]
"""A value and the column (type) it was written under."""

META_TABLES = {"tidb_cdc_checkpoint", "tidb_cdc_ddl_ts"}


@dataclass
class TableState:
    info: TableInfo
    rows: dict[tuple[Any, ...], dict[str, Cell]] = field(default_factory=dict)

    def key(self, image: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(image[name] for name in self.info.handle_key)


def final_state(records: Iterable[FeedRecord]) -> dict[int, TableState]:
    """Table id -> its final schema and rows."""
    tables: dict[int, TableState] = {}
    for record in records:
        if type(record) is FeedRow:
            row = record.row
            state = tables.setdefault(row.table.table_id, TableState(row.table))
            state.info = row.table
            if row.before is not None:
                state.rows.pop(state.key(row.before), None)
            if row.after is not None:
                columns = row.table.column_by_name
                state.rows[state.key(row.after)] = {
                    name: (columns[name], value) for name, value in row.after.items()
                }
        elif type(record) is FeedDDL:
            _apply_ddl(tables, record)
    return tables


def _apply_ddl(tables: dict[int, TableState], record: FeedDDL) -> None:
    ddl = record.ddl
    kind, table, pre = ddl.ddl_type, ddl.table, ddl.pre_table
    if kind is DDLType.ERASE:
        tables.pop((pre or table).table_id, None)
    elif kind is DDLType.TRUNCATE:
        tables.pop(pre.table_id, None)
        tables[table.table_id] = TableState(table)
    elif kind is DDLType.CREATE:
        tables[table.table_id] = TableState(table)
    elif table is not None:
        state = tables.setdefault(table.table_id, TableState(table))
        state.info = table
        if kind is DDLType.ALTER:
            for key, cells in state.rows.items():
                state.rows[key] = {
                    col.name: cells.get(col.name, (col, col.default))
                    for col in table.stored_columns
                }


def stored(col: ColumnInfo, value: Any) -> Any:
    """What the plugin documents it stores for ``value`` of ``col`` (JSON kept parsed)."""
    if value is None:
        return None
    kind = col.mysql_type
    if (kind == "bigint" and col.unsigned) or (kind == "bit" and (col.length or 1) >= 64):
        return str(value)
    if kind in ("binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob"):
        return base64.b64decode(value)
    if kind == "set":
        return ",".join(value)
    if kind in ("float", "double"):
        return float(value)
    return value


def _read(col: ColumnInfo, value: Any) -> Any:
    """A database value in the form ``stored`` gives (JSON parsed for comparison)."""
    if value is not None and col.mysql_type in ("json", "vector"):
        return json.loads(value)
    return value


def _loose(value: Any) -> Any:
    """A value compared across a type change (MODIFY COLUMN): as a number if it is one."""
    try:
        return Decimal(str(value))
    except (InvalidOperation, ValueError):
        return value


def database_state(path: Path, tables: dict[int, TableState]) -> dict[str, dict]:
    """Table name -> key -> column -> value, read from the database for the given schemas."""
    conn = sqlite3.connect(path)
    try:
        names = {
            name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        } - META_TABLES
        out: dict[str, dict] = {name: {} for name in names}
        for state in tables.values():
            info = state.info
            columns = [c for c in info.stored_columns]
            select = ", ".join('"' + c.name + '"' for c in columns)
            for values in conn.execute(f'SELECT {select} FROM "{info.qualified_name}"'):
                image = {c.name: _read(c, v) for c, v in zip(columns, values, strict=True)}
                key = tuple(image[k] for k in info.handle_key)
                out[info.qualified_name][key] = image
        return out
    finally:
        conn.close()


def expected_state(tables: dict[int, TableState]) -> dict[str, dict]:
    """``final_state`` in the database's form: table name -> key -> column -> (the column the
    value was written under, the stored value)."""
    out: dict[str, dict] = {}
    for state in tables.values():
        info = state.info
        columns = info.column_by_name
        rows: dict[tuple[Any, ...], dict[str, Cell]] = {}
        for key, cells in state.rows.items():
            db_key = tuple(stored(columns[k], v) for k, v in zip(info.handle_key, key, strict=True))
            rows[db_key] = {name: (col, stored(col, value)) for name, (col, value) in cells.items()}
        out[info.qualified_name] = rows
    return out


def assert_database_holds(path: Path, records: Iterable[FeedRecord]) -> dict[str, int]:
    """Compare the database with the feed's final state; returns rows per table."""
    tables = final_state(records)
    got = database_state(path, tables)
    want = expected_state(tables)
    assert sorted(got) == sorted(want), "tables differ"
    for state in tables.values():
        name = state.info.qualified_name
        assert sorted(got[name]) == sorted(want[name]), f"{name}: keys differ"
        for key, cells in want[name].items():
            actual = got[name][key]
            for col in state.info.stored_columns:
                written, value = cells[col.name]
                if written == col:
                    assert actual[col.name] == value, (name, key, col.name)
                else:  # written before a MODIFY COLUMN: converted by the new affinity
                    assert _loose(actual[col.name]) == _loose(value), (name, key, col.name)
    return {name: len(rows) for name, rows in want.items()}
