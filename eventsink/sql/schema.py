"""DDL events applied to tables, from the schemas the events carry (no SQL parsing).

A table's columns are the stored ones of the DDL's ``table`` (virtual generated columns are never
in row images), typed by the dialect; its PRIMARY KEY is the handle key (the primary key, else
TiCDC's NOT NULL unique key), and only those columns are NOT NULL. Every other index is created
as a plain index: the handle key alone identifies a row, and a UNIQUE secondary index could
refuse the transient states a replay passes through (a BAB replay briefly holds an older row
beside a newer one).

ALTER rebuilds the table, the same way in every dialect: create the new shape, copy the kept
columns (matched by name, or by column id for a renamed one), drop the old table, rename the new
one. A column added with a default gives the kept rows that default. A modified column's kept
values must fit its new type, else the ALTER is refused as TiDB's strict mode refuses it
(``narrowing``). Every function runs in the caller's transaction (MySQL commits around each DDL
statement itself).
"""

from __future__ import annotations

import logging

from tisink.eventsink.sql.dialect import Cursor, Dialect
from tisink.eventsink.sql.errors import SQLSinkError
from tisink.eventsink.sql.narrowing import check_kept_values
from tisink.model.events import DDLEvent, DDLType
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo

log = logging.getLogger(__name__)

REBUILD_SUFFIX = "__rebuild"


def _column_sql(d: Dialect, col: ColumnInfo, key: tuple[str, ...]) -> str:
    parts = [d.quote(col.name), d.column_type(col), "NOT NULL" if col.name in key else "NULL"]
    check = d.column_check(col)
    if check is not None:
        parts.append(check)
    if col.default is not None:
        try:
            parts.append(f"DEFAULT {d.literal(col, col.default)}")
        except (TypeError, ValueError) as err:
            # a default that is no value of the column (an expression): rows keep NULL
            log.warning("column %s: default %r not stored: %s", col.name, col.default, err)
    return " ".join(parts)


def create_table_sql(d: Dialect, table: TableInfo, name: str | None = None) -> str:
    key = table.handle_key
    parts = [_column_sql(d, col, key) for col in table.stored_columns]
    if key:
        parts.append(f"PRIMARY KEY ({', '.join(map(d.quote, key))})")
    ref = d.table_ref(table.schema, name or table.table)
    return f"CREATE TABLE IF NOT EXISTS {ref} ({', '.join(parts)}){d.table_options()}"


def ensure_table(d: Dialect, cur: Cursor, table: TableInfo) -> bool:
    """Create ``table`` with its indexes unless a table of that name exists; True if created."""
    if d.table_exists(cur, table.schema, table.table):
        return False
    d.check_names(table)
    d.ensure_schema(cur, table.schema)
    cur.execute(create_table_sql(d, table))
    sync_indexes(d, cur, table)
    return True


def _index_sql(d: Dialect, table: TableInfo, index: IndexInfo) -> str | None:
    by_name = table.column_by_name
    columns = [d.index_column(by_name[name]) for name in index.columns]
    if any(c is None for c in columns):
        log.info("%s: index %s not created: a column cannot be indexed", table.qualified_name,
                 index.name)  # fmt: skip
        return None
    name = d.quote(d.index_name(table, index))
    return f"CREATE INDEX {name} ON {d.ref(table)} ({', '.join(c for c in columns if c)})"


def sync_indexes(d: Dialect, cur: Cursor, table: TableInfo) -> None:
    """Make the indexes this applier manages on ``table`` those of the schema: drop the ones
    it no longer has (or that carry an earlier name of the table), create the missing ones."""
    stored = {col.name for col in table.stored_columns}
    wanted = {
        d.index_name(table, index): index
        for index in table.indexes
        if not index.primary and set(index.columns) <= stored
    }
    existing = set(d.managed_indexes(cur, table.schema, table.table))
    for name in sorted(existing - set(wanted)):
        cur.execute(d.drop_index_sql(table.schema, table.table, name))
    for name, index in wanted.items():
        if name not in existing:
            sql = _index_sql(d, table, index)
            if sql is not None:
                cur.execute(sql)


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


def rebuild_table(d: Dialect, cur: Cursor, pre: TableInfo | None, table: TableInfo) -> None:
    """Give the table ``table``'s shape, keeping its rows."""
    old = pre if pre is not None else table
    if not d.table_exists(cur, old.schema, old.table):
        ensure_table(d, cur, table)
        return
    d.check_names(table)
    have = d.column_names(cur, old.schema, old.table)
    sources = _sources(pre, table, have)
    if pre is not None:
        check_kept_values(d, cur, pre, table, sources)
    # within MySQL's 64 characters and PostgreSQL's 63 bytes
    temporary = table.table.encode()[:54].decode(errors="ignore") + REBUILD_SUFFIX
    cur.execute(f"DROP TABLE IF EXISTS {d.table_ref(table.schema, temporary)}")
    d.ensure_schema(cur, table.schema)
    cur.execute(create_table_sql(d, table, temporary))
    by_name = table.column_by_name
    targets = ", ".join(map(d.quote, sources))
    values = ", ".join(d.copy_expr(src, by_name[dst]) for dst, src in sources.items())
    if sources:
        d.copy_rows(
            cur,
            f"INSERT INTO {d.table_ref(table.schema, temporary)} ({targets}) "
            f"SELECT {values} FROM {d.ref(old)}",
        )
    cur.execute(f"DROP TABLE {d.ref(old)}")
    for sql in d.rename_sqls((table.schema, temporary), (table.schema, table.table)):
        cur.execute(sql)
    sync_indexes(d, cur, table)


def rename_table(d: Dialect, cur: Cursor, pre: TableInfo, table: TableInfo) -> None:
    old, new = (pre.schema, pre.table), (table.schema, table.table)
    if old == new or not d.table_exists(cur, *old):
        ensure_table(d, cur, table)
        return
    if d.table_exists(cur, *new):
        raise SQLSinkError(f"RENAME {pre.qualified_name} TO {table.qualified_name}: "
                           f"table {table.qualified_name!r} already exists")  # fmt: skip
    d.check_names(table)
    d.ensure_schema(cur, table.schema)
    for sql in d.rename_sqls(old, new):
        cur.execute(sql)
    sync_indexes(d, cur, table)  # index names may carry the table's name: recreated


def apply_ddl(d: Dialect, cur: Cursor, ddl: DDLEvent) -> None:
    """Apply one DDL event from the schemas it carries; DDLs without a table are skipped."""
    table, pre = ddl.table, ddl.pre_table
    kind = ddl.ddl_type
    if kind is DDLType.ERASE:
        gone = pre or table
        if gone is not None:
            cur.execute(f"DROP TABLE IF EXISTS {d.ref(gone)}")
        return
    if table is None:
        log.info("DDL without a table has nothing to apply: %s", ddl.describe())
        return
    if kind is DDLType.RENAME and pre is not None:
        rename_table(d, cur, pre, table)
    elif kind is DDLType.ALTER:
        rebuild_table(d, cur, pre, table)
    elif kind is DDLType.TRUNCATE:
        ensure_table(d, cur, table)
        cur.execute(f"DELETE FROM {d.ref(table)}")
    else:  # CREATE, CINDEX, DINDEX and QUERY DDLs on a table
        ensure_table(d, cur, table)
        sync_indexes(d, cur, table)
