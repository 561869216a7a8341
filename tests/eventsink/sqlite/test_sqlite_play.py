"""The installed ``sqlite`` plugin end to end: real workloads through the real player, table
sinks and plugin into real SQLite files, checked against the feed's own final state."""

from __future__ import annotations

import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.eventsink.sqlite.expected import assert_database_holds
from tests.eventsink.sqlite.support import (
    boundary,
    commit_ts,
    last_commit_ts,
    play_records,
    stored_checkpoint,
    uri,
)
from tisink.feed import play_inline, play_with_factory
from tisink.feed.errors import PlayError
from tisink.feed.records import FeedRow
from tisink.feed.workload import generate_records
from tisink.model.events import DDLEvent
from tisink.model.table import TableInfo
from tisink.sink import SinkFactory
from tisink.tablesink import TableSink

TISINK = shutil.which("tisink") or str(Path(sys.executable).with_name("tisink"))


@pytest.mark.parametrize(("workload", "rows"), [("demo", 6000), ("all-types", 500)])
async def test_a_workload_played_into_sqlite_holds_the_feeds_final_state(tmp_path, workload, rows):
    records = list(generate_records(workload, 11, rows))
    db = tmp_path / "cdc.db"
    stats = await play_with_factory(records, SinkFactory(uri(db, "batch-rows=500")))
    counts = assert_database_holds(db, records)
    assert sum(counts.values()) > 0 and all(counts.values())
    assert stored_checkpoint(db) == stats.checkpoint_ts == last_commit_ts(records)


def test_the_readme_command(tmp_path):
    """``tisink play --engine inline --workload demo --sink-uri sqlite:///demo.db``, as a user
    runs it (fewer rows), and ``tisink sinks`` naming the plugin."""
    sinks = subprocess.run([TISINK, "sinks"], capture_output=True, text=True, timeout=60)
    assert sinks.returncode == 0, sinks.stderr
    # table borders differ by terminal encoding: keep the words only
    listed = [re.findall(r"[\w.-]+", line) for line in sinks.stdout.splitlines()]
    assert ["sqlite", "tisink-sqlite", "ddl"] in listed
    play = subprocess.run(
        [TISINK, "play", "--engine", "inline", "--workload", "demo", "--rows", "4000",
         "--sink-uri", "sqlite:///demo.db"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert play.returncode == 0, play.stderr
    assert_database_holds(tmp_path / "demo.db", list(generate_records("demo", 0, 4000)))


class LosingCheckpoints:
    """A DDL sink that passes DDLs on but stores no checkpoint after ``limit``: the process
    died before it could, so the database is behind what it really holds."""

    def __init__(self, sink: object, limit: int) -> None:
        self.sink = sink
        self.limit = limit

    async def write_ddl_event(self, ddl: DDLEvent) -> None:
        await self.sink.write_ddl_event(ddl)

    async def write_checkpoint_ts(self, ts: int, tables: Sequence[TableInfo]) -> None:
        if ts <= self.limit:
            await self.sink.write_checkpoint_ts(ts, tables)

    async def close(self) -> None:
        return None


async def test_replaying_the_last_part_twice_leaves_the_same_state(tmp_path):
    records = list(generate_records("demo", 5, 6000))
    db = tmp_path / "cdc.db"
    factory = SinkFactory(uri(db, "batch-rows=256"))
    sink = await factory.create_event_sink()
    limit = commit_ts(records[boundary(records, 0.4)])  # checkpoints lost after 40%
    try:
        await play_inline(
            records, sink, LosingCheckpoints(sink, limit), lambda tid: TableSink(tid, sink)
        )
    finally:
        await sink.close()
    assert assert_database_holds(db, records)
    assert 0 < stored_checkpoint(db) <= limit

    # restart and replay the last half: all of it is past the stored checkpoint, so it is
    # delivered again; rows older than their table's last DDL are recognised and skipped
    last_half = records[boundary(records, 0.5) :]
    again = await play_records(db, last_half)
    applied_again = again.stats().txns - again.replayed_txns
    assert applied_again > 0 and again.replayed_txns > 0
    assert_database_holds(db, records)
    assert stored_checkpoint(db) == last_commit_ts(records)

    # and the whole feed once more: everything is at or below the checkpoint now
    whole = await play_records(db, records)
    assert whole.replayed_txns == whole.stats().txns > 0
    assert_database_holds(db, records)


async def test_a_fatal_error_stops_the_play_naming_the_table(tmp_path):
    records = list(generate_records("demo", 9, 6000))
    split = boundary(records, 0.5)
    db = tmp_path / "cdc.db"
    await play_records(db, records[:split])
    # a constraint in the database refuses the first order inserted after the split
    refused = next(
        r.row
        for r in records[split:]
        if type(r) is FeedRow and r.row.table.table == "orders" and r.row.is_insert
    )
    order_id = str(refused.after["id"])  # bigint unsigned: stored as text
    with sqlite3.connect(db) as conn:
        conn.execute(
            f"CREATE TRIGGER refuse BEFORE INSERT ON \"shop.orders\" WHEN NEW.id = '{order_id}' "
            f"BEGIN SELECT RAISE(ABORT, 'order {order_id} refused'); END"
        )
    with pytest.raises(PlayError) as caught:
        await play_records(db, records[split:])
    message = str(caught.value)
    assert "shop.orders" in message and f"order {order_id} refused" in message
    assert caught.value.last_checkpoint_ts < refused.commit_ts
    assert stored_checkpoint(db) < refused.commit_ts
    with sqlite3.connect(db) as conn:
        found = conn.execute('SELECT 1 FROM "shop.orders" WHERE id = ?', (order_id,))
        assert found.fetchall() == []
        conn.execute("DROP TRIGGER refuse")
    # with the constraint gone, the same play resumes after the stored checkpoint and completes
    await play_records(db, records[split:])
    assert_database_holds(db, records)
