"""PostgreSQL (driver: psycopg 3): the URI names a database, a TiDB schema is a PostgreSQL
schema of it and a table a table.

Column types hold every value of the MySQL type: integers in the smallest type that fits the
signed or unsigned range (unsigned BIGINT and BIT(64) as ``numeric(20,0)``), DECIMAL as
``numeric(p,s)``, FLOAT ``real``, DOUBLE ``double precision``, CHAR and VARCHAR ``varchar(n)``
(PostgreSQL's ``char`` pads, MySQL's does not), the TEXTs ``text``, binary strings ``bytea``, DATE
``date``, DATETIME ``timestamp(n)``, TIMESTAMP ``timestamptz(n)`` (the session is in UTC), TIME
``interval`` (MySQL's TIME spans -838..838 hours), YEAR ``smallint``, ENUM and SET ``text``, JSON
``jsonb``, VECTOR ``jsonb`` holding TiDB's text of the vector (a JSON array; pgvector is an
extension a server may lack). Rows are written with ``INSERT ... ON CONFLICT (key) DO UPDATE``
through psycopg's pipelined ``executemany``. DDL is transactional: a DDL and its metadata commit
together.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import psycopg
from psycopg import errors as pg_errors
from psycopg.conninfo import make_conninfo

from tisink.eventsink.sql.dialect import Cursor, Params, Writer
from tisink.eventsink.sql.errors import SQLNameError
from tisink.eventsink.sql.information_schema import InformationSchemaDialect
from tisink.model.mysqltypes import INTEGER_RANGES, TypeFamily
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo

RETRIABLE = (pg_errors.SerializationFailure, pg_errors.DeadlockDetected, pg_errors.LockNotAvailable)
MAX_IDENTIFIER_BYTES = 63
_INTEGERS = {  # (signed, unsigned)
    "tinyint": ("smallint", "smallint"),
    "smallint": ("smallint", "integer"),
    "mediumint": ("integer", "integer"),
    "int": ("integer", "bigint"),
    "bigint": ("bigint", "numeric(20,0)"),
    "year": ("smallint", "smallint"),
}
_FIXED = {
    TypeFamily.FLOAT: "real",
    TypeFamily.DOUBLE: "double precision",
    TypeFamily.BINARY: "bytea",
    TypeFamily.DATE: "date",
    TypeFamily.ENUM: "text",
    TypeFamily.SET: "text",
    TypeFamily.JSON: "jsonb",
    TypeFamily.VECTOR: "jsonb",
    TypeFamily.TIME: "interval",
}


def _fraction(col: ColumnInfo) -> str:
    return f"({col.decimal})" if col.decimal > 0 else "(0)"


class PostgreSQLDialect(InformationSchemaDialect):
    name = "postgresql"

    def __init__(self, host: str, port: int, user: str, password: str, dbname: str) -> None:
        super().__init__()
        self._where = f"postgresql://{user}@{host}:{port}/{dbname}"
        self._conninfo = make_conninfo(
            "", host=host, port=port, user=user, password=password, dbname=dbname or None
        )

    def connect(self) -> None:
        self.conn = psycopg.connect(self._conninfo, autocommit=False)
        self.conn.execute("SET TIME ZONE 'UTC'")
        self.conn.commit()

    def describe(self) -> str:
        return self._where

    def is_retriable(self, err: Exception) -> bool:
        """Also two connections creating one schema at once: the loser's ``IF NOT EXISTS``
        looked before the winner committed, and a retry finds the schema."""
        if isinstance(err, pg_errors.UniqueViolation):
            return err.diag.constraint_name == "pg_namespace_nspname_index"
        return isinstance(err, RETRIABLE)

    def table_ref(self, schema: str, table: str) -> str:
        return f"{self.quote(schema)}.{self.quote(table)}"

    def column_type(self, col: ColumnInfo) -> str:
        family, name = col.family, col.mysql_type
        if name in _INTEGERS:
            return _INTEGERS[name][col.unsigned]
        if family is TypeFamily.BIT:
            return "numeric(20,0)" if (col.length or 1) >= 64 else "bigint"
        if family is TypeFamily.DECIMAL:
            return f"numeric({col.length or 10},{col.decimal})"
        if family is TypeFamily.STRING:
            return f"varchar({col.length})" if name in ("char", "varchar") else "text"
        if family is TypeFamily.DATETIME:
            return "timestamp" + _fraction(col)
        if family is TypeFamily.TIMESTAMP:
            return "timestamptz" + _fraction(col)
        return _FIXED[family]

    def column_check(self, col: ColumnInfo) -> str | None:
        """Integers keep to the MySQL type's range (``tinyint unsigned`` is a ``smallint``)."""
        if col.mysql_type not in INTEGER_RANGES:
            return None
        low, high = _bounds(col) or ("", "")
        return f"CHECK ({self.quote(col.name)} BETWEEN {low} AND {high})"

    def bytes_literal(self, value: bytes) -> str:
        return f"'\\x{value.hex()}'::bytea"

    def upsert_sql(self, ref: str, names: Sequence[str], key: Sequence[str]) -> str:
        others = [n for n in names if n not in key]
        target = ", ".join(map(self.quote, key))
        if not others:
            return f"{self.insert_sql(ref, names)} ON CONFLICT ({target}) DO NOTHING"
        update = ", ".join(f"{self.quote(n)} = EXCLUDED.{self.quote(n)}" for n in others)
        return f"{self.insert_sql(ref, names)} ON CONFLICT ({target}) DO UPDATE SET {update}"

    def row_writer(self, ref: str, names: Sequence[str], key: Sequence[str]) -> Writer:
        """Rows with a key: ``COPY`` into a temporary stage table shaped like the table, then
        one ``INSERT ... SELECT ... ON CONFLICT``: the server parses no statement of thousands
        of parameters, and psycopg formats the COPY rows in C. The rows of one call have
        distinct keys (``rows.RowStatements``), so the upsert touches no row twice. One stage
        per table, made again for each table version (a writer is built once per version, and
        again after a failed transaction, which may have taken the stage with it)."""
        if not key:
            return super().row_writer(ref, names, key)
        stage = self.quote("tisink_stage_" + hashlib.sha1(ref.encode()).hexdigest()[:16])
        columns = ", ".join(map(self.quote, names))
        create = (f"DROP TABLE IF EXISTS {stage}", f"CREATE TEMP TABLE {stage} (LIKE {ref})")
        made: list[bool] = []
        copy_sql = f"COPY {stage} ({columns}) FROM STDIN"
        conflict = self.upsert_sql(ref, names, key).partition(") ON CONFLICT ")[2]
        upsert = (
            f"INSERT INTO {ref} ({columns}) SELECT {columns} FROM {stage} ON CONFLICT {conflict}"
        )

        def write(cur: Cursor, params: list[Params]) -> None:
            if not made:
                for sql in create:
                    cur.execute(sql)
                made.append(True)
            with cur.copy(copy_sql) as copy:
                for row in params:
                    copy.write_row(row)
            cur.execute(upsert)
            cur.execute(f"TRUNCATE {stage}")

        return write

    def delete_rows(self, cur: Cursor, ref: str, key: Sequence[str], params: list[Params]) -> None:
        """One ``DELETE ... WHERE k = ANY(array)`` for a one-column key."""
        if len(key) > 1:
            super().delete_rows(cur, ref, key, params)
            return
        cur.execute(
            f"DELETE FROM {ref} WHERE {self.quote(key[0])} = ANY(%s)", ([k for (k,) in params],)
        )

    def delete_one_sql(self, ref: str, names: Sequence[str]) -> str:
        match = " AND ".join(f"{self.quote(n)} IS NOT DISTINCT FROM %s" for n in names)
        return f"DELETE FROM {ref} WHERE ctid = (SELECT ctid FROM {ref} WHERE {match} LIMIT 1)"

    def bad_column(
        self, columns: Sequence[ColumnInfo], rows: Sequence[Params]
    ) -> tuple[str, str] | None:
        """PostgreSQL's data errors name a type, not a column: cast each column's values,
        as text, to its type until one fails."""
        for index, col in enumerate(columns):
            texts = [None if row[index] is None else str(row[index]) for row in rows]
            if col.family is TypeFamily.BINARY:
                continue
            try:
                with self.conn.cursor() as cur:
                    cur.execute(
                        f"SELECT CAST(v AS {self.column_type(col)}) FROM unnest(%s::text[]) AS v",
                        (texts,),
                    )
            except psycopg.Error as err:
                self.conn.rollback()
                return col.name, str(err).strip()
        self.conn.rollback()
        return None

    def ensure_schema(self, cur: Cursor, schema: str) -> None:
        cur.execute(f"CREATE SCHEMA IF NOT EXISTS {self.quote(schema)}")

    def managed_indexes(self, cur: Cursor, schema: str, table: str) -> list[str]:
        cur.execute(
            "SELECT i.relname FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid "
            "JOIN pg_class t ON t.oid = x.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace "
            "WHERE n.nspname = %s AND t.relname = %s AND NOT x.indisprimary",
            (schema, table),
        )
        return [row[0] for row in cur.fetchall() if "/" in row[0]]

    def check_names(self, table: TableInfo) -> None:
        """PostgreSQL cuts an identifier past 63 bytes, so two long names sharing their first
        63 bytes would be one table (or column): refused, naming each, rather than mapped to
        names a consumer's own sink would not choose."""
        named = [("schema", table.schema), ("table", table.table)]
        named += [("column", col.name) for col in table.stored_columns]
        long = [
            f"{kind} {name!r} ({size} bytes)"
            for kind, name in named
            if (size := len(name.encode())) > MAX_IDENTIFIER_BYTES
        ]
        if long:
            raise SQLNameError(
                f"table {table.qualified_name}: PostgreSQL keeps {MAX_IDENTIFIER_BYTES} bytes "
                f"of a name and would merge longer ones sharing them: {', '.join(long)}"
            )

    def index_name(self, table: TableInfo, index: IndexInfo) -> str:
        """``table/index``, unique within the schema; past 63 bytes, the table's name cut
        with a digest of the whole in place of the index (PostgreSQL would cut it, and two
        indexes of a long-named table would then share a name)."""
        name = f"{table.table}/{index.name}"
        if len(name.encode()) <= MAX_IDENTIFIER_BYTES:
            return name
        digest = hashlib.sha1(name.encode()).hexdigest()[:16]
        head = table.table.encode()[: MAX_IDENTIFIER_BYTES - len(digest) - 1]
        return f"{head.decode(errors='ignore')}/{digest}"

    def drop_index_sql(self, schema: str, table: str, index_name: str) -> str:
        return f"DROP INDEX {self.table_ref(schema, index_name)}"

    def rename_sqls(self, old: tuple[str, str], new: tuple[str, str]) -> list[str]:
        sqls: list[str] = []
        schema, table = old
        if new[0] != schema:
            sqls.append(f"ALTER TABLE {self.table_ref(*old)} SET SCHEMA {self.quote(new[0])}")
            schema = new[0]
        if new[1] != table:
            moved = self.table_ref(schema, table)
            sqls.append(f"ALTER TABLE {moved} RENAME TO {self.quote(new[1])}")
        return sqls

    def copy_expr(self, source: str, col: ColumnInfo) -> str:
        """Cast to the new type (every kept value fits it: ``narrowing``); a number going to
        an integer is rounded half away from zero first, as MySQL does (PostgreSQL's own
        cast from a float rounds half to even)."""
        value, target = self.quote(source), self.column_type(col)
        if col.mysql_type in INTEGER_RANGES:
            value = f"ROUND(CAST({value} AS numeric))"
        return f"CAST({value} AS {target})"


def _bounds(col: ColumnInfo) -> tuple[str, str] | None:
    """The lowest and highest value of an integer column, as SQL numbers."""
    ranges = INTEGER_RANGES.get(col.mysql_type)
    if ranges is None:
        return None
    signed_low, signed_high, unsigned_high = ranges
    return ("0", str(unsigned_high)) if col.unsigned else (str(signed_low), str(signed_high))
