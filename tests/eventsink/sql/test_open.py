"""Opening a SQLite database another connection holds: waited for like a busy batch, then one
clear error naming the database (no traceback), and nothing held open."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from tisink.eventsink.batching import RetryPolicy
from tisink.eventsink.sql.errors import SQLSinkError
from tisink.eventsink.sql.sink import SQLSink
from tisink.eventsink.sql.sqlite import SQLiteDialect

PATIENT = RetryPolicy(max_attempts=6, initial_backoff_s=0.05, max_backoff_s=0.2)


def _locked(path: Path) -> sqlite3.Connection:
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("PRAGMA journal_mode = WAL")
    holder.execute("CREATE TABLE IF NOT EXISTS other (a)")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("INSERT INTO other VALUES (1)")
    return holder


async def test_a_database_locked_throughout_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "cdc.db"
    holder = _locked(path)
    try:
        sink = SQLSink(SQLiteDialect(path, busy_timeout_s=0.05), retry=PATIENT)
        with pytest.raises(SQLSinkError, match=f"{path}: cannot open: database is locked"):
            await sink.open()
    finally:
        holder.close()


async def test_a_lock_released_while_waiting_lets_the_sink_open(tmp_path: Path) -> None:
    path = tmp_path / "cdc.db"
    holder = _locked(path)
    loop = asyncio.get_running_loop()
    loop.call_later(0.3, holder.rollback)
    sink = SQLSink(SQLiteDialect(path, busy_timeout_s=0.05), retry=PATIENT)
    try:
        await sink.open()
        assert sink.checkpoint_ts == 0
    finally:
        await sink.close()
        holder.close()
