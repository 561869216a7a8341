"""Hand-built SQLite databases for the check tests, laid out as tisink writes them: a table
``schema.table`` is the SQLite table named ``"schema.table"``, and the MySQL types sit in the
meta table ``"tidb_cdc.columns"`` (the contract of tisink's SQL applier)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

META_DDL = (
    'CREATE TABLE "tidb_cdc.columns" (schema_name TEXT, table_name TEXT, position INTEGER, '
    "column_name TEXT, mysql_type TEXT, is_key INTEGER)"
)


@dataclass
class Table:
    """A table: ``columns`` as (name, SQLite declared type, MySQL type), ``key`` its key."""

    name: str
    columns: Sequence[tuple[str, str, str]]
    key: tuple[str, ...] = ("id",)
    rows: Sequence[Sequence[Any]] = ()

    def create_sql(self) -> str:
        parts = [f'"{name}" {sql_type}' for name, sql_type, _ in self.columns]
        if self.key:
            parts.append(f"PRIMARY KEY ({', '.join(self.key)})")
        return f'CREATE TABLE "{self.name}" ({", ".join(parts)})'


def build(path: Path, tables: Iterable[Table], *, meta: bool = True) -> str:
    """Write the database at ``path`` and return its ``sqlite:///`` URL."""
    with sqlite3.connect(path) as conn:
        if meta:
            conn.execute(META_DDL)
        for table in tables:
            conn.execute(table.create_sql())
            marks = ", ".join("?" * len(table.columns))
            conn.executemany(f'INSERT INTO "{table.name}" VALUES ({marks})', table.rows)
            if not meta:
                continue
            schema, _, name = table.name.partition(".")
            conn.executemany(
                'INSERT INTO "tidb_cdc.columns" VALUES (?, ?, ?, ?, ?, ?)',
                [
                    (schema, name, position, column, mysql_type, int(column in table.key))
                    for position, (column, _, mysql_type) in enumerate(table.columns)
                ],
            )
    conn.close()
    return f"sqlite:///{path}"


def execute(url: str, sql: str, *params: Any) -> None:
    """Run one statement on the database of a ``sqlite:///`` URL (to mutate a copy)."""
    with sqlite3.connect(url.removeprefix("sqlite:///")) as conn:
        conn.execute(sql, params)
    conn.close()
