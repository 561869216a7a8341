"""Helpers of the SQL applier tests: one ``Database`` per dialect (its sink URI and a plain client
connection to read it back), the stored checkpoint, plays, transaction boundaries.

The ``database`` fixture (``conftest.py``) is parametrised over ``sqlite``, ``mysql`` and
``postgresql``; the servers start only when a test asks for them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.db_servers import mariadb_connect, wipe_mariadb
from tisink.eventsink.base import CallbackableEvent, StateRef
from tisink.eventsink.sql import SQLSink
from tisink.feed import play_with_factory
from tisink.feed.format.records import FeedRecord, FeedRow
from tisink.model.events import SingleTableTxn
from tisink.sink import SinkFactory

DIALECTS = ("sqlite", "mysql", "postgresql")
META = "tidb_cdc"
SYSTEM_SCHEMAS = {"information_schema", "mysql", "performance_schema", "sys", "pg_catalog",
                  "pg_toast", "public", META}  # fmt: skip


@dataclass
class Database:
    """A database a test writes through a sink URI and reads back with its own client."""

    kind: str
    url: str
    path: Path | None = None
    """The file, for SQLite."""

    def connect(self) -> Any:
        if self.kind == "sqlite":
            assert self.path is not None
            return sqlite3.connect(self.path)
        if self.kind == "mysql":
            return mariadb_connect(self.url)
        return psycopg.connect(self.url, autocommit=True)

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        conn = self.connect()
        try:
            cur = conn.cursor()
            if params:
                cur.execute(sql.replace("?", "%s") if self.kind != "sqlite" else sql, params)
            else:
                cur.execute(sql)
            rows = list(cur.fetchall()) if cur.description else []
            conn.commit()
            return rows
        finally:
            conn.close()

    def quote(self, name: str) -> str:
        return f"`{name}`" if self.kind == "mysql" else f'"{name}"'

    def ref(self, schema: str, table: str) -> str:
        if self.kind == "sqlite":
            return self.quote(f"{schema}.{table}")
        return f"{self.quote(schema)}.{self.quote(table)}"

    def tables(self) -> set[str]:
        """``schema.table`` of every table but the metadata."""
        if self.kind == "sqlite":
            found = self.query("SELECT name FROM sqlite_master WHERE type = 'table'")
            return {name for (name,) in found if not name.startswith(META + ".")}
        found = self.query("SELECT table_schema, table_name FROM information_schema.tables")
        return {f"{s}.{t}" for s, t in found if s not in SYSTEM_SCHEMAS}

    def checkpoint(self) -> int:
        return int(self.query(f"SELECT checkpoint_ts FROM {self.ref(META, 'checkpoint')}")[0][0])

    def ddl_ts(self) -> dict[int, int]:
        found = self.query(f"SELECT table_id, ddl_ts FROM {self.ref(META, 'ddl_ts')}")
        return {int(a): int(b) for a, b in found}

    def columns(self, schema: str, table: str) -> list[tuple[int, str, str, int]]:
        """``tidb_cdc.columns`` of one table: (position, column_name, mysql_type, is_key)."""
        found = self.query(
            f"SELECT {self.quote('position')}, column_name, mysql_type, is_key "
            f"FROM {self.ref(META, 'columns')} WHERE schema_name = ? AND table_name = ? "
            f"ORDER BY {self.quote('position')}",
            (schema, table),
        )
        return [(int(p), n, t, int(k)) for p, n, t, k in found]


def fresh_database(request: pytest.FixtureRequest, kind: str, tmp_path: Path) -> Database:
    """A new empty database of ``kind``; the servers start only when a test needs them."""
    if kind == "sqlite":
        return sqlite_database(tmp_path / "cdc.db")
    if kind == "mysql":
        return Database(kind, request.getfixturevalue("fresh_mariadb"))
    return Database(kind, request.getfixturevalue("fresh_postgresql"))


def sqlite_database(path: Path, params: str = "") -> Database:
    url = f"sqlite:///{path}" + (f"?{params}" if params else "")  # absolute: four slashes
    return Database("sqlite", url, path)


def with_params(url: str, params: str) -> str:
    return url + ("&" if "?" in url else "?") + params if params else url


def last_commit_ts(records: Sequence[FeedRecord]) -> int:
    return max(r.row.commit_ts for r in records if type(r) is FeedRow)


def commit_ts(record: FeedRecord) -> int:
    return record.row.commit_ts if type(record) is FeedRow else record.commit_ts


def boundary(records: Sequence[FeedRecord], fraction: float) -> int:
    """The first index at or after ``fraction`` of the feed that starts a transaction: a play
    ends (and is resolved) only between transactions, never inside one."""
    index = int(len(records) * fraction)
    while commit_ts(records[index]) == commit_ts(records[index - 1]):
        index += 1
    return index


async def play_records(url: str, records: Sequence[FeedRecord]) -> SQLSink:
    """A fresh factory (as a restarted ``tisink play``): returns the sink after the play."""
    factory = SinkFactory(url)
    sink = await factory.create_event_sink()
    assert isinstance(sink, SQLSink)
    await play_with_factory(records, factory)
    return sink


def index_names(db: Database) -> list[str]:
    """The secondary indexes of every table but the metadata, as each database names them."""
    if db.kind == "sqlite":
        found = db.query("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
        return sorted(name for (name,) in found)
    if db.kind == "mysql":
        found = db.query(
            "SELECT DISTINCT table_schema, index_name FROM information_schema.statistics "
            "WHERE index_name <> 'PRIMARY'"
        )
    else:
        found = db.query("SELECT schemaname, indexname FROM pg_indexes WHERE indexname LIKE '%/%'")
    return sorted(name for schema, name in found if schema not in SYSTEM_SCHEMAS)


async def opened(db: Database, params: str = "") -> SQLSink:
    """The sink of ``db`` made by its scheme's provider, opened."""
    sink = await SinkFactory(with_params(db.url, params)).create_event_sink()
    assert isinstance(sink, SQLSink)
    return sink


def reset(db: Database) -> None:
    """Drop every table the applier made, metadata included (a new empty database)."""
    if db.kind == "sqlite":
        assert db.path is not None
        for suffix in ("", "-wal", "-shm"):
            db.path.with_name(db.path.name + suffix).unlink(missing_ok=True)
    elif db.kind == "mysql":
        wipe_mariadb(db.url)
    else:
        found = db.query("SELECT nspname FROM pg_namespace")
        for (name,) in found:
            if name not in SYSTEM_SCHEMAS - {META} and not name.startswith("pg_"):
                db.query(f'DROP SCHEMA "{name}" CASCADE')


async def write_txns(sink: SQLSink, txns: Sequence[SingleTableTxn]) -> None:
    """Hand ``txns`` to the event sink as the table sinks would, then wait until written."""
    sink.write_events([CallbackableEvent(txn, lambda: None, StateRef()) for txn in txns])
    await sink.flush()
