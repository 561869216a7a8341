"""DDL events applied to SQLite tables, from the schemas the events carry (no SQL parsing).

A TiDB table ``schema.table`` is the SQLite table named ``"schema.table"`` (one database file
holds every schema). Its columns are the stored ones of the DDL's ``table`` (virtual generated
columns are never in row images), typed by ``values.declared_type``; the primary key is the
table's; every other index is created as ``"schema.table/index"``, UNIQUE ones as UNIQUE (the
idempotent REPLACE then behaves as MySQL's REPLACE). Only the handle key columns are NOT NULL.

SQLite cannot change a column's type, so ALTER rebuilds the table: create the new shape, copy
the kept columns (matched by name, or by column id for a rename), drop the old one, rename.
Kept values are converted by the new column's affinity, as SQLite converts any insert.
Every function runs inside the caller's transaction.
"""

from __future__ import annotations

import logging
import sqlite3

from tisink.plugin import ColumnInfo, DDLEvent, DDLType, IndexInfo, TableInfo
from tisink_sqlite.errors import SQLiteSinkError
from tisink_sqlite.values import declared_type, sql_literal

log = logging.getLogger(__name__)

REBUILD_SUFFIX = "/rebuild"


def table_name(table: TableInfo) -> str:
    return table.qualified_name


def quote(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def _column_sql(col: ColumnInfo, key: tuple[str, ...]) -> str:
    parts = [quote(col.name), declared_type(col)]
    if col.name in key:
        parts.append("NOT NULL")
    if col.default is not None:
        try:
            parts.append(f"DEFAULT {sql_literal(col, col.default)}")
        except (TypeError, ValueError) as err:
            # a default that is no value of the column (an expression): rows keep NULL
            log.warning("column %s: default %r not stored: %s", col.name, col.default, err)
    return " ".join(parts)


def create_table_sql(table: TableInfo, name: str | None = None) -> str:
    key = table.handle_key
    parts = [_column_sql(col, key) for col in table.stored_columns]
    primary = next((index for index in table.indexes if index.primary), None)
    if primary is not None:
        parts.append(f"PRIMARY KEY ({', '.join(map(quote, primary.columns))})")
    return f"CREATE TABLE IF NOT EXISTS {quote(name or table_name(table))} ({', '.join(parts)})"


def exists(conn: sqlite3.Connection, name: str) -> bool:
    # fetchall: a statement left open on the connection would lock the table against DDL
    found = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
    ).fetchall()
    return bool(found)


def ensure_table(conn: sqlite3.Connection, table: TableInfo) -> None:
    """Create ``table`` with its indexes unless a table of that name exists."""
    if not exists(conn, table_name(table)):
        conn.execute(create_table_sql(table))
        sync_indexes(conn, table)


def _index_sql(table: TableInfo, index: IndexInfo) -> str:
    unique = "UNIQUE " if index.unique else ""
    name = quote(f"{table_name(table)}/{index.name}")
    columns = ", ".join(map(quote, index.columns))
    return f"CREATE {unique}INDEX {name} ON {quote(table_name(table))} ({columns})"


def sync_indexes(conn: sqlite3.Connection, table: TableInfo) -> None:
    """Make the indexes this sink manages on ``table`` those of the schema: drop the ones it
    no longer has or that carry an earlier name of the table, create the missing ones."""
    name = table_name(table)
    stored = {col.name for col in table.stored_columns}
    wanted = {
        index.name: index
        for index in table.indexes
        if not index.primary and set(index.columns) <= stored
    }
    kept: set[str] = set()
    existing = conn.execute(f"PRAGMA index_list({quote(name)})").fetchall()
    for _, index_name, _, origin, _ in existing:
        owner, _, tidb_name = index_name.rpartition("/")
        if origin != "c" or not owner:
            continue  # an index of the PRIMARY KEY, or one this sink did not create
        if owner != name or tidb_name not in wanted:
            conn.execute(f"DROP INDEX {quote(index_name)}")
        else:
            kept.add(tidb_name)
    for index_name, index in wanted.items():
        if index_name not in kept:
            conn.execute(_index_sql(table, index))


def _sources(pre: TableInfo | None, table: TableInfo, have: list[str]) -> dict[str, str]:
    """New column -> the existing column its values come from (same name, else the column
    with the same id that the DDL renamed)."""
    renamed = {c.id: c.name for c in pre.stored_columns} if pre is not None else {}
    new_names = {c.name for c in table.stored_columns}
    sources: dict[str, str] = {}
    for col in table.stored_columns:
        if col.name in have:
            sources[col.name] = col.name
            continue
        old = renamed.get(col.id)
        if old is not None and old not in new_names and old in have:
            sources[col.name] = old
    return sources


def rebuild_table(conn: sqlite3.Connection, pre: TableInfo | None, table: TableInfo) -> None:
    """Give the table ``table``'s shape, keeping its rows."""
    old = table_name(pre) if pre is not None else table_name(table)
    if not exists(conn, old):
        ensure_table(conn, table)
        return
    have = [row[1] for row in conn.execute(f"PRAGMA table_info({quote(old)})").fetchall()]
    sources = _sources(pre, table, have)
    temporary = table_name(table) + REBUILD_SUFFIX
    conn.execute(create_table_sql(table, temporary))
    targets = ", ".join(map(quote, sources))
    columns = ", ".join(map(quote, sources.values()))
    conn.execute(f"INSERT INTO {quote(temporary)} ({targets}) SELECT {columns} FROM {quote(old)}")
    conn.execute(f"DROP TABLE {quote(old)}")
    conn.execute(f"ALTER TABLE {quote(temporary)} RENAME TO {quote(table_name(table))}")
    sync_indexes(conn, table)


def rename_table(conn: sqlite3.Connection, pre: TableInfo, table: TableInfo) -> None:
    old, new = table_name(pre), table_name(table)
    if old == new or not exists(conn, old):
        ensure_table(conn, table)
        return
    if exists(conn, new):
        raise SQLiteSinkError(f"RENAME {old} TO {new}: table {new!r} already exists")
    conn.execute(f"ALTER TABLE {quote(old)} RENAME TO {quote(new)}")
    sync_indexes(conn, table)  # index names carry the table's name: recreated


def apply_ddl(conn: sqlite3.Connection, ddl: DDLEvent) -> None:
    """Apply one DDL event from the schemas it carries; DDLs without a table are skipped."""
    table, pre = ddl.table, ddl.pre_table
    kind = ddl.ddl_type
    if kind is DDLType.ERASE:
        gone = pre or table
        if gone is not None:
            conn.execute(f"DROP TABLE IF EXISTS {quote(table_name(gone))}")
        return
    if table is None:
        log.info("DDL without a table has nothing to apply in SQLite: %s", ddl.describe())
        return
    if kind is DDLType.RENAME and pre is not None:
        rename_table(conn, pre, table)
    elif kind is DDLType.ALTER:
        rebuild_table(conn, pre, table)
    elif kind is DDLType.TRUNCATE:
        ensure_table(conn, table)
        conn.execute(f"DELETE FROM {quote(table_name(table))}")
    else:  # CREATE, CINDEX, DINDEX and QUERY DDLs on a table
        ensure_table(conn, table)
        sync_indexes(conn, table)
