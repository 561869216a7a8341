"""SQLite (the standard library's ``sqlite3``): one database file holds every TiDB schema.

A TiDB table ``schema.table`` is the SQLite table named ``"schema.table"``, its secondary indexes
``"schema.table/index"``, with ``%``, ``.`` and ``/`` inside each name written ``%25``, ``%2E``
and ``%2F`` (``table_name``): ``s``.``dot.ted`` is ``"s.dot%2Eted"`` and ``s.dot``.``ted`` is
``"s%2Edot.ted"``, so no two tables (nor a table and an index) share a name, and ordinary names
are as they always were. SQLite has five storage classes and a declared type only sets a
column's affinity, so the type is chosen to keep each MySQL value whole: integers, YEAR and BIT
up to 63 bits ``INTEGER``; unsigned BIGINT and BIT(64) ``TEXT`` of the digits (SQLite integers
are signed 64-bit, and a column mixing integers and text could not be matched by key); FLOAT and
DOUBLE ``REAL``; binary strings ``BLOB``; everything else (DECIMAL exactly as in the feed, text,
ENUM, SET, dates and times, JSON) ``TEXT``. SQLite enforces no type: a value a MySQL column could
not hold is stored as it is. The connection runs in WAL mode; ``BEGIN IMMEDIATE`` takes the write
lock up front, so a database busy with another writer fails fast (after ``busy_timeout_s``) with
SQLITE_BUSY, which is retried.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from tisink.eventsink.sql.dialect import Cursor, Dialect, Params
from tisink.eventsink.sql.errors import SQLSinkError
from tisink.eventsink.sql.narrowing import HUGE_DIGITS, number_of, rounded_decimal
from tisink.eventsink.sql.values import Convert, common_converter, number_text
from tisink.model.mysqltypes import INTEGER_RANGES, TypeFamily
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo

SYNCHRONOUS_MODES = ("off", "normal", "full", "extra")
_ESCAPES = str.maketrans({"%": "%25", ".": "%2E", "/": "%2F"})
_ESCAPED = re.compile("%(25|2E|2F)")
_UNESCAPES = {"25": "%", "2E": ".", "2F": "/"}
_INTEGERS = (TypeFamily.INT, TypeFamily.BIGINT, TypeFamily.YEAR, TypeFamily.BIT)


def _wide(col: ColumnInfo) -> bool:
    """Values may not fit SQLite's signed 64-bit integers."""
    family = col.family
    return (family is TypeFamily.BIGINT and col.unsigned) or (
        family is TypeFamily.BIT and (col.length or 1) >= 64
    )


def _escape(name: str) -> str:
    return name.translate(_ESCAPES)


def table_name(schema: str, table: str) -> str:
    """The SQLite name of TiDB's ``schema.table``: one ``.`` between the escaped parts."""
    return f"{_escape(schema)}.{_escape(table)}"


def split_table_name(name: str) -> tuple[str, str] | None:
    """(schema, table) of a name ``table_name`` made; None for any other name (an index, a
    table of the database's own)."""
    parts = name.split(".")
    if len(parts) != 2 or "/" in name:
        return None
    schema, table = (_ESCAPED.sub(lambda m: _UNESCAPES[m[1]], part) for part in parts)
    return (schema, table) if table_name(schema, table) == name else None


class SQLiteDialect(Dialect):
    name = "sqlite"
    mark = "?"

    def __init__(
        self, path: Path, *, synchronous: str = "normal", busy_timeout_s: float = 5.0
    ) -> None:
        super().__init__()
        if synchronous.lower() not in SYNCHRONOUS_MODES:
            raise SQLSinkError(
                f"synchronous must be one of {', '.join(SYNCHRONOUS_MODES)}, got {synchronous!r}"
            )
        self.path = path
        self._synchronous = synchronous
        self._busy_timeout_s = busy_timeout_s

    def connect(self) -> None:
        conn = sqlite3.connect(
            self.path, timeout=self._busy_timeout_s, isolation_level=None, check_same_thread=False
        )
        self.conn = conn
        try:
            conn.create_function(_DECIMAL, 2, _decimal_text, deterministic=True)
            conn.create_function(_INTEGER, 1, _integer, deterministic=True)
            conn.execute("PRAGMA journal_mode = WAL").fetchall()
            conn.execute(f"PRAGMA synchronous = {self._synchronous}")
        except BaseException:
            self.close()
            raise

    def describe(self) -> str:
        return str(self.path)

    def begin(self, cur: Cursor) -> None:
        cur.execute("BEGIN IMMEDIATE")

    def commit(self, cur: Cursor) -> None:
        cur.execute("COMMIT")

    def is_retriable(self, err: Exception) -> bool:
        """SQLITE_BUSY once the busy timeout ran out: another connection holds the database.
        SQLITE_LOCKED is a conflict within this connection, which a retry repeats."""
        code = getattr(err, "sqlite_errorcode", None)
        return (
            isinstance(err, sqlite3.OperationalError)
            and code is not None
            and code & 0xFF == sqlite3.SQLITE_BUSY
        )

    def table_ref(self, schema: str, table: str) -> str:
        return self.quote(table_name(schema, table))

    def column_type(self, col: ColumnInfo) -> str:
        family = col.family
        if _wide(col):
            return "TEXT"
        if family in _INTEGERS:
            return "INTEGER"
        if family in (TypeFamily.FLOAT, TypeFamily.DOUBLE):
            return "REAL"
        if family is TypeFamily.BINARY:
            return "BLOB"
        return "TEXT"

    def converter(self, col: ColumnInfo) -> Convert | None:
        return number_text if _wide(col) else common_converter(col)

    def upsert_sql(self, ref: str, names: Sequence[str], key: Sequence[str]) -> str:
        return "INSERT OR REPLACE" + self.insert_sql(ref, names).removeprefix("INSERT")

    def delete_rows(self, cur: Cursor, ref: str, key: Sequence[str], params: list[Params]) -> None:
        """SQLite runs a statement per key in C as fast as an IN list."""
        cur.executemany(self.delete_sql(ref, key), params)

    def delete_one_sql(self, ref: str, names: Sequence[str]) -> str:
        match = " AND ".join(f"{self.quote(n)} IS ?" for n in names)
        return f"DELETE FROM {ref} WHERE rowid = (SELECT rowid FROM {ref} WHERE {match} LIMIT 1)"

    def _one(self, cur: Cursor, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        # fetchall: a statement left open on the connection would lock the table against DDL
        return list(cur.execute(sql, params).fetchall())

    def table_exists(self, cur: Cursor, schema: str, table: str) -> bool:
        sql = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
        return bool(self._one(cur, sql, (table_name(schema, table),)))

    def column_names(self, cur: Cursor, schema: str, table: str) -> list[str]:
        return [
            row[1] for row in self._one(cur, f"PRAGMA table_info({self.table_ref(schema, table)})")
        ]

    def managed_indexes(self, cur: Cursor, schema: str, table: str) -> list[str]:
        """Indexes named ``owner/index`` created by a statement (origin ``c``): not those of
        the PRIMARY KEY nor any this applier did not name."""
        found = self._one(cur, f"PRAGMA index_list({self.table_ref(schema, table)})")
        return [name for _, name, _, origin, _ in found if origin == "c" and "/" in name]

    def index_name(self, table: TableInfo, index: IndexInfo) -> str:
        return f"{table_name(table.schema, table.table)}/{_escape(index.name)}"

    def drop_index_sql(self, schema: str, table: str, index_name: str) -> str:
        return f"DROP INDEX {self.quote(index_name)}"

    def rename_sqls(self, old: tuple[str, str], new: tuple[str, str]) -> list[str]:
        return [f"ALTER TABLE {self.table_ref(*old)} RENAME TO {self.table_ref(*new)}"]

    def copy_expr(self, source: str, col: ColumnInfo) -> str:
        """Kept values as the new type holds them (SQLite's affinity converts nothing that
        would lose a digit): DECIMAL text at the column's scale, integers rounded, both half
        away from zero as MySQL rounds."""
        value = self.quote(source)
        if col.family is TypeFamily.DECIMAL:
            return f"{_DECIMAL}({value}, {col.decimal})"
        if col.mysql_type in INTEGER_RANGES and not _wide(col):
            return f"{_INTEGER}({value})"
        return value


_DECIMAL, _INTEGER = "tisink_decimal", "tisink_integer"
"""The SQL functions of ``copy_expr``, defined on each connection."""


def _roundable(value: Any) -> Decimal | None:
    number = None if value is None or isinstance(value, bytes) else number_of(value)
    return number if number is not None and number.adjusted() < HUGE_DIGITS else None


def _decimal_text(value: Any, scale: int) -> Any:
    number = _roundable(value)
    return value if number is None else str(rounded_decimal(number, scale))


def _integer(value: Any) -> Any:
    number = None if isinstance(value, int) else _roundable(value)
    return value if number is None else int(rounded_decimal(number, 0))
