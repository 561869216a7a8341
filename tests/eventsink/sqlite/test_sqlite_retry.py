"""A database busy with another writer: the plugin's writes fail with SQLITE_BUSY, are retried
with backoff, and succeed once the other writer lets go; nothing is lost or written twice."""

from __future__ import annotations

import asyncio
import sqlite3

from tisink_sqlite import SQLiteSink

from tests.eventsink.sqlite.expected import assert_database_holds
from tests.eventsink.sqlite.support import boundary, play_records
from tisink.eventsink.batching import RetryPolicy
from tisink.feed import play_inline
from tisink.feed.workload import generate_records
from tisink.tablesink import TableSink


async def test_a_busy_database_is_retried_and_nothing_is_lost(tmp_path):
    records = list(generate_records("demo", 13, 3000))
    split = boundary(records, 0.5)
    db = tmp_path / "cdc.db"
    await play_records(db, records[:split])

    patient = RetryPolicy(max_attempts=100, initial_backoff_s=0.005, max_backoff_s=0.02)
    sink = SQLiteSink(db, busy_timeout_s=0.005, retry=patient)
    await sink.open()
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process writing: the database is busy
    play = asyncio.ensure_future(
        play_inline(records[split:], sink, sink, lambda tid: TableSink(tid, sink))
    )
    try:
        while sink.stats().retries < 2:
            assert not play.done(), "the play ended while the database was busy"
            await asyncio.sleep(0.005)
        other.execute("COMMIT")
        await asyncio.wait_for(play, 60)
    finally:
        other.close()
        await sink.close()
    assert sink.error is None
    assert sink.stats().retries >= 2
    assert_database_holds(db, records)
