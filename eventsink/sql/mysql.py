"""MySQL and MariaDB (driver: PyMySQL, pure Python; mysqlclient has no wheel for Linux and
would need a C toolchain and the client headers): TiCDC's MySQL sink role.

A TiDB schema is a database and a table a table of it, as TiCDC's MySQL sink writes them. A
column's type is the MySQL type itself (``SHOW CREATE TABLE``'s spelling), but VECTOR, which
MariaDB before 11.7 lacks, is LONGTEXT holding TiDB's text of the vector (``[1,0.5,-2]``).
Tables are utf8mb4 with the binary collation, as TiDB's default, so keys that differ in case or
trailing spaces stay apart. The session writes TIMESTAMPs in UTC and in strict mode, so a
value a column cannot hold is an error naming the column. Rows are written with ``INSERT ... ON
DUPLICATE KEY UPDATE``, which PyMySQL's ``executemany`` sends as multi-row statements, and
deleted by key lists. MySQL commits around every DDL, so a DDL and its metadata are two steps; a
DDL applied again is harmless.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import pymysql

from tisink.codec.dts.mysql_codes import original_type
from tisink.eventsink.sql.dialect import Cursor, Params, Writer
from tisink.eventsink.sql.information_schema import InformationSchemaDialect
from tisink.model.mysqltypes import INTEGER_RANGES, TypeFamily
from tisink.model.table import ColumnInfo

RETRIABLE_CODES = frozenset({1205, 1213})
"""ER_LOCK_WAIT_TIMEOUT, ER_LOCK_DEADLOCK."""
MAX_STATEMENT_BYTES = 4 << 20
INDEX_PREFIX = 191
"""Characters of a TEXT or BLOB column an index covers (767 bytes of utf8mb4)."""
_PREFIXED = frozenset(
    {"tinytext", "text", "mediumtext", "longtext", "tinyblob", "blob", "mediumblob", "longblob",
     "vector"}
)  # fmt: skip
SESSION = (
    "SET SESSION time_zone = '+00:00'",
    "SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION'",
    "SET SESSION explicit_defaults_for_timestamp = 1",
)


_SPECIAL = re.compile("[\\0\\\\'\n\r\x1a]")
"""What MySQL's escaping changes inside a single-quoted string (backslash escapes are on)."""


def _text(value: str) -> str:
    """Quoted, escaped as ``mysql_real_escape_string`` does (a double quote needs nothing
    inside single quotes); replace chains run in C, where a translation table with
    multi-character replacements does not."""
    if _SPECIAL.search(value):
        value = (
            value.replace("\\", "\\\\")
            .replace("'", "\\'")
            .replace("\0", "\\0")
            .replace("\n", "\\n")
            .replace("\r", "\\r")
            .replace("\x1a", "\\Z")
        )
    return "'" + value + "'"


def _hex(value: bytes) -> str:
    return "X'" + value.hex() + "'"


_LITERALS: dict[type, Callable[[Any], str]] = {
    int: str,
    float: repr,
    str: _text,
    bytes: _hex,
    type(None): lambda _: "NULL",
}
"""SQL literal of each Python type the converters hand over."""


class MySQLDialect(InformationSchemaDialect):
    name = "mysql"

    def __init__(self, host: str, port: int, user: str, password: str) -> None:
        super().__init__()
        self._host, self._port, self._user, self._password = host, port, user, password

    def connect(self) -> None:
        self.conn = pymysql.connect(
            host=self._host,
            port=self._port,
            user=self._user,
            password=self._password,
            charset="utf8mb4",
            autocommit=False,
        )
        with self.conn.cursor() as cur:
            for statement in SESSION:
                cur.execute(statement)

    def describe(self) -> str:
        return f"mysql://{self._user}@{self._host}:{self._port}"

    def begin(self, cur: Cursor) -> None:
        self.conn.begin()

    def is_retriable(self, err: Exception) -> bool:
        return (
            isinstance(err, pymysql.err.OperationalError | pymysql.err.InternalError)
            and bool(err.args)
            and err.args[0] in RETRIABLE_CODES
        )

    def quote(self, identifier: str) -> str:
        return "`" + identifier.replace("`", "``") + "`"

    def table_ref(self, schema: str, table: str) -> str:
        return f"{self.quote(schema)}.{self.quote(table)}"

    def column_type(self, col: ColumnInfo) -> str:
        if col.family is TypeFamily.VECTOR:
            return "longtext"
        return original_type(col)

    def table_options(self) -> str:
        return " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"

    def upsert_sql(self, ref: str, names: Sequence[str], key: Sequence[str]) -> str:
        others = [n for n in names if n not in key] or list(key[:1])
        update = ", ".join(f"{self.quote(n)} = VALUES({self.quote(n)})" for n in others)
        return f"{self.insert_sql(ref, names)} ON DUPLICATE KEY UPDATE {update}"

    def delete_one_sql(self, ref: str, names: Sequence[str]) -> str:
        match = " AND ".join(f"{self.quote(n)} <=> %s" for n in names)
        return f"DELETE FROM {ref} WHERE {match} LIMIT 1"

    def row_writer(self, ref: str, names: Sequence[str], key: Sequence[str]) -> Writer:
        """Multi-row statements of up to ``MAX_STATEMENT_BYTES``, the values rendered as SQL
        literals by their Python type (PyMySQL's ``executemany`` does the same rewrite, but
        escapes each value through a generic dispatch that costs more than the server)."""
        sql = self.upsert_sql(ref, names, key) if key else self.insert_sql(ref, names)
        head, _, tail = sql.partition(f"VALUES ({self.marks(len(names))})")
        head += "VALUES "

        def write(cur: Cursor, params: list[Params]) -> None:
            groups: list[str] = []
            size = 0
            for row in params:
                group = "(" + ",".join([_LITERALS[type(v)](v) for v in row]) + ")"
                groups.append(group)
                size += len(group) + 1
                if size >= MAX_STATEMENT_BYTES:
                    cur.execute(head + ",".join(groups) + tail)
                    groups, size = [], 0
            if groups:
                cur.execute(head + ",".join(groups) + tail)

        return write

    def copy_expr(self, source: str, col: ColumnInfo) -> str:
        """A number going to an integer is rounded half away from zero through DECIMAL (the
        server rounds a DOUBLE half to even)."""
        value = self.quote(source)
        if col.mysql_type in INTEGER_RANGES:
            return f"ROUND(CAST({value} AS DECIMAL(65,30)))"
        return value

    def ensure_schema(self, cur: Cursor, schema: str) -> None:
        cur.execute(
            f"CREATE DATABASE IF NOT EXISTS {self.quote(schema)} "
            "CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"
        )

    def managed_indexes(self, cur: Cursor, schema: str, table: str) -> list[str]:
        cur.execute(
            "SELECT DISTINCT index_name FROM information_schema.statistics "
            "WHERE table_schema = %s AND table_name = %s AND index_name <> 'PRIMARY'",
            (schema, table),
        )
        return [row[0] for row in cur.fetchall()]

    def index_column(self, col: ColumnInfo) -> str | None:
        if col.family is TypeFamily.JSON:
            return None
        if col.mysql_type in _PREFIXED:
            return f"{self.quote(col.name)}({INDEX_PREFIX})"
        return self.quote(col.name)

    def drop_index_sql(self, schema: str, table: str, index_name: str) -> str:
        return f"DROP INDEX {self.quote(index_name)} ON {self.table_ref(schema, table)}"

    def rename_sqls(self, old: tuple[str, str], new: tuple[str, str]) -> list[str]:
        return [f"RENAME TABLE {self.table_ref(*old)} TO {self.table_ref(*new)}"]
