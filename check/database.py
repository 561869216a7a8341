"""One database to compare, read with SQLAlchemy Core: its tables by TiDB name, their columns
and primary keys, the ``tidb_cdc.columns`` meta table tisink's SQL applier writes, and rows
streamed in chunks. Every failure is a CheckError naming the URL (secrets masked).

TiDB names (``naming.tidb_name``): in SQLite (one namespace) the table tisink's SQLite sink
names for ``schema.table`` is that table and any other table ``t`` is ``main.t``; in MySQL a
database is a TiDB schema, in PostgreSQL a schema is. Meta tables (schema ``tidb_cdc``, SQLite
tables ``tidb_cdc*``) and the servers' own schemas are never listed."""

from __future__ import annotations

import contextlib
import logging
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import SQLAlchemyError

from tisink.check.errors import CheckError, NotUTF8Error
from tisink.check.naming import sqlite_tidb_name, tidb_name
from tisink.check.normalise import NotUTF8
from tisink.check.urls import DatabaseURL
from tisink.sink.uri import scrub

log = logging.getLogger(__name__)

META_SCHEMA = "tidb_cdc"
_NOT_UTF8 = "Could not decode to UTF-8"
"""The start of sqlite3's error for TEXT whose bytes are no UTF-8."""
_SYSTEM_SCHEMAS = frozenset(
    ("information_schema", "mysql", "performance_schema", "sys", "pg_catalog", "pg_toast")
)


@dataclass(frozen=True)
class Location:
    """Where a table is: its SQL schema (None in SQLite) and its SQL name."""

    schema: str | None
    table: str

    def sql_table(self) -> sa.TableClause:
        return sa.table(self.table, schema=self.schema)


def _sqlite_text(raw: bytes) -> str | NotUTF8:
    """sqlite3's ``text_factory`` for a table that holds TEXT that is not UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return NotUTF8(raw)


@dataclass(frozen=True)
class StoredColumn:
    name: str
    sql_type: sa.types.TypeEngine[Any]


def _columns(names: Sequence[str]) -> list[sa.ColumnClause[Any]]:
    """Untyped columns: values come as the driver returns them, with no type processing."""
    return [sa.column(name) for name in names]


class Database:
    """An opened database; use as a context manager."""

    def __init__(self, url: DatabaseURL) -> None:
        self.url = url
        if url.dialect == "sqlite":
            path = url.raw.partition("://")[2][1:].partition("?")[0]
            if not Path(path).is_file():  # SQLAlchemy would create an empty database
                raise CheckError(f"{url.masked}: no SQLite database file {path}")
        with self.reading("open the database"):
            self.engine = sa.create_engine(url.sqlalchemy_url)
            self.inspector = sa.inspect(self.engine)

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *_: object) -> None:
        self.engine.dispose()

    @contextlib.contextmanager
    def reading(self, what: str) -> Iterator[None]:
        """Turn any driver or SQLAlchemy error into a CheckError naming the URL and ``what``."""
        try:
            yield
        except SQLAlchemyError as err:
            cause = str(getattr(err, "orig", None) or err).splitlines()[0]
            message = f"{self.url.masked}: cannot {what}: {scrub(cause, self.url.raw)}"
            if isinstance(getattr(err, "orig", None), sqlite3.OperationalError) and (
                _NOT_UTF8 in cause
            ):
                raise NotUTF8Error(message) from None
            raise CheckError(message) from None
        except (ImportError, OSError, ValueError) as err:
            message = f"{self.url.masked}: cannot {what}: {scrub(str(err), self.url.raw)}"
            raise CheckError(message) from None

    def tables(self) -> dict[str, Location]:
        """TiDB name (``schema.table``) -> location, meta and system tables left out."""
        found: dict[str, Location] = {}
        with self.reading("list the tables"):
            if self.url.dialect == "sqlite":
                for name in self.inspector.get_table_names():
                    if name.startswith(META_SCHEMA):
                        continue
                    found[sqlite_tidb_name(name)] = Location(None, name)
                return found
            for schema in self.inspector.get_schema_names():
                if schema in _SYSTEM_SCHEMAS or schema == META_SCHEMA or schema.startswith("pg_"):
                    continue
                for name in self.inspector.get_table_names(schema=schema):
                    found[tidb_name(schema, name)] = Location(schema, name)
        return found

    def columns(self, where: Location) -> list[StoredColumn]:
        with self.reading(f"read the columns of {where.table}"):
            reflected = self.inspector.get_columns(where.table, schema=where.schema)
        return [StoredColumn(col["name"], col["type"]) for col in reflected]

    def primary_key(self, where: Location) -> tuple[str, ...]:
        with self.reading(f"read the primary key of {where.table}"):
            constraint = self.inspector.get_pk_constraint(where.table, schema=where.schema)
        return tuple(constraint.get("constrained_columns") or ())

    def meta_location(self, table: str) -> Location:
        if self.url.dialect == "sqlite":
            return Location(None, f"{META_SCHEMA}.{table}")
        return Location(META_SCHEMA, table)

    def read_meta(self, table: str, columns: Sequence[str]) -> list[Sequence[Any]] | None:
        """All rows of the meta table ``tidb_cdc.<table>``; None when there is none."""
        where = self.meta_location(table)
        with self.reading(f"read {META_SCHEMA}.{table}"):
            if not self.inspector.has_table(where.table, schema=where.schema):
                return None
            query = sa.select(*_columns(columns)).select_from(where.sql_table())
            with self.engine.connect() as conn:
                return [tuple(row) for row in conn.execute(query)]

    def count_rows(self, where: Location) -> int:
        query = sa.select(sa.func.count()).select_from(where.sql_table())
        with self.reading(f"count the rows of {where.table}"), self.engine.connect() as conn:
            return int(conn.execute(query).scalar_one())

    def stream(
        self,
        where: Location,
        columns: Sequence[str],
        order_by: Sequence[str],
        chunk_rows: int,
        json_columns: frozenset[str] = frozenset(),
        *,
        bad_text: bool = False,
    ) -> Iterator[Sequence[Sequence[Any]]]:
        """The rows of ``where`` (``columns`` in that order), ordered by ``order_by`` on the
        server, in chunks of ``chunk_rows``: a server-side cursor, so memory stays bounded.
        Columns are untyped here, so values come as the driver returns them; but PostgreSQL's
        ``json_columns`` are read as text, since psycopg returns JSON ``null`` as None, which
        would be SQL NULL. SQLite TEXT that is not UTF-8 raises NotUTF8Error, unless
        ``bad_text``: then it is read as ``NotUTF8`` (slower, so only when needed)."""
        as_text = json_columns if self.url.dialect == "postgresql" else frozenset()
        selected = [
            sa.cast(col, sa.Text) if col.name in as_text else col for col in _columns(columns)
        ]
        query = sa.select(*selected).select_from(where.sql_table())
        if order_by:
            query = query.order_by(*_columns(order_by))
        with self.reading(f"read the rows of {where.table}"), self.engine.connect() as conn:
            if self.url.dialect == "sqlite":  # set on each use: the pool keeps connections
                raw = conn.connection.dbapi_connection
                raw.text_factory = _sqlite_text if bad_text else str  # type: ignore[union-attr]
            options = conn.execution_options(stream_results=True, yield_per=chunk_rows)
            result = options.execute(query)
            yield from result.partitions()
