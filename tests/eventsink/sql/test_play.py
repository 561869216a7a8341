"""Real workloads through the real player and table sinks into each database, checked against
the feed's own final state: whole plays, plays replayed, plays cut and resumed, and the README's
command."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.db_servers import PASSWORD
from tests.eventsink.sql.expected import assert_database_holds, final_state
from tests.eventsink.sql.support import (
    Database,
    boundary,
    commit_ts,
    fresh_database,
    last_commit_ts,
    play_records,
    sqlite_database,
    with_params,
)
from tisink.feed import play_inline, play_with_factory
from tisink.feed.workload import generate_records
from tisink.model.events import DDLEvent
from tisink.model.table import TableInfo
from tisink.sink import SinkFactory
from tisink.tablesink import TableSink

TISINK = shutil.which("tisink") or str(Path(sys.executable).with_name("tisink"))


@pytest.mark.parametrize(("workload", "rows"), [("demo", 6000), ("all-types", 500)])
async def test_a_workload_played_into_a_database_holds_the_feeds_final_state(
    database: Database, workload: str, rows: int
) -> None:
    records = list(generate_records(workload, 11, rows))
    stats = await play_with_factory(
        records, SinkFactory(with_params(database.url, "batch-rows=500"))
    )
    counts = assert_database_holds(database, records)
    assert sum(counts.values()) > 0 and all(counts.values())
    assert database.checkpoint() == stats.checkpoint_ts == last_commit_ts(records)
    for state in final_state(records).values():  # the metadata follows every DDL
        info = state.info
        stored = database.columns(info.schema, info.table)
        assert [(p, n, k) for p, n, _, k in stored] == [
            (p, c.name, int(c.name in info.handle_key)) for p, c in enumerate(info.stored_columns)
        ]


class LosingCheckpoints:
    """A DDL sink that passes DDLs on but stores no checkpoint after ``limit``: the process
    died before it could, so the database is behind what it really holds."""

    def __init__(self, sink: object, limit: int) -> None:
        self.sink = sink
        self.limit = limit

    async def write_ddl_event(self, ddl: DDLEvent) -> None:
        await self.sink.write_ddl_event(ddl)  # type: ignore[attr-defined]

    async def write_checkpoint_ts(self, ts: int, tables: Sequence[TableInfo]) -> None:
        if ts <= self.limit:
            await self.sink.write_checkpoint_ts(ts, tables)  # type: ignore[attr-defined]

    async def close(self) -> None:
        return None


async def test_replaying_the_last_part_twice_leaves_the_same_state(database: Database) -> None:
    records = list(generate_records("demo", 5, 6000))
    url = with_params(database.url, "batch-rows=256")
    sink = await SinkFactory(url).create_event_sink()
    limit = commit_ts(records[boundary(records, 0.4)])  # checkpoints lost after 40%
    try:
        await play_inline(
            records, sink, LosingCheckpoints(sink, limit), lambda tid: TableSink(tid, sink)
        )
    finally:
        await sink.close()
    assert assert_database_holds(database, records)
    assert 0 < database.checkpoint() <= limit

    # restart and replay the last half: all of it is past the stored checkpoint, so it is
    # delivered again; every transaction is at or before its table's applied position (stored
    # with its rows), so each is recognised and skipped
    last_half = records[boundary(records, 0.5) :]
    again = await play_records(url, last_half)
    assert again.replayed_txns == again.stats().txns > 0
    assert_database_holds(database, records)
    assert database.checkpoint() == last_commit_ts(records)

    # and the whole feed once more: everything is at or below the checkpoint now
    whole = await play_records(url, records)
    assert whole.replayed_txns == whole.stats().txns > 0
    assert_database_holds(database, records)


async def test_a_play_cut_at_a_checkpoint_resumes(database: Database) -> None:
    records = list(generate_records("all-types", 3, 600))
    split = boundary(records, 0.6)
    first = await play_records(database.url, records[:split])
    assert first.checkpoint_ts == database.checkpoint() == last_commit_ts(records[:split])
    resumed = await play_records(database.url, records)  # the whole feed from the start
    assert resumed.replayed_txns > 0
    assert_database_holds(database, records)
    assert database.checkpoint() == last_commit_ts(records)


def test_the_readme_command(tmp_path: Path) -> None:
    """``tisink play --engine inline --workload demo --sink-uri sqlite:///demo.db``, as a user
    runs it (fewer rows), and ``tisink sinks`` naming the built-in database schemes."""
    sinks = subprocess.run([TISINK, "sinks"], capture_output=True, text=True, timeout=60)
    assert sinks.returncode == 0, sinks.stderr
    # table borders differ by terminal encoding: keep the words only
    listed = [re.findall(r"[\w.-]+", line) for line in sinks.stdout.splitlines()]
    for scheme in ("sqlite", "mysql", "postgresql"):
        assert [scheme, "built-in", "ddl", "updates", "whole"] in listed
    play = subprocess.run(
        [TISINK, "play", "--engine", "inline", "--workload", "demo", "--rows", "4000",
         "--sink-uri", "sqlite:///demo.db"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert play.returncode == 0, play.stderr
    assert_database_holds(
        sqlite_database(tmp_path / "demo.db"), list(generate_records("demo", 0, 4000))
    )


@pytest.mark.parametrize("kind", ["mysql", "postgresql"])
def test_the_cli_plays_into_a_server_and_never_shows_its_password(request, kind, tmp_path):
    db = fresh_database(request, kind, tmp_path)
    play = subprocess.run(
        [TISINK, "play", "--engine", "inline", "--workload", "all-types", "--rows", "300",
         "--sink-uri", db.url, "--summary-json", str(tmp_path / "run.json")],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert play.returncode == 0, play.stderr
    shown = play.stdout + play.stderr + (tmp_path / "run.json").read_text()
    assert PASSWORD not in shown and ":xxxxx@" in shown
    assert_database_holds(db, list(generate_records("all-types", 0, 300)))
