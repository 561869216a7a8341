"""A play into SQLite killed with SIGKILL, then run again as the README says (the same command:
it resumes where the database is), leaves every table as one uninterrupted play does: also a
table without a key, whose rows are not idempotent, since each batch commits its table's applied
position with its rows (the checkpoint trails what was committed)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from tests.eventsink.sql.support import play_records
from tisink.eventsink.sql.sqlite import table_name
from tisink.feed.format.reader import read_feed
from tisink.feed.workload import generate_feed

SCENARIO = """
name = "keyless"
rows = 30000
start = "2024-05-01T08:00:00Z"
txn_size = [1, 6]
mix = { insert = 0.6, update = 0.3, delete = 0.1 }

[[tables]]
schema = "log"
name = "lines"
columns = [
  { name = "a", type = "int" },
  { name = "b", type = "varchar(16)", size = [0, 8] },
]

[[tables]]
schema = "log"
name = "keyed"
primary = ["id"]
columns = [
  { name = "id", type = "int", nullable = false },
  { name = "b", type = "varchar(16)", size = [0, 8] },
]
"""
TABLES = (("log", "lines"), ("log", "keyed"))


def play_command(feed: Path, db: Path) -> list[str]:
    """``tisink play`` of ``feed`` into ``db``: small batches and rare watermarks, so many
    batches commit between two checkpoints (the window a kill falls in)."""
    return [
        sys.executable, "-c", "from tisink.cli import main; main()", "play", "--engine", "inline",
        "--no-verify", "--watermark-interval", "5", "--feed", str(feed),
        "--sink-uri", f"sqlite:///{db}?batch-rows=100",
    ]  # fmt: skip


def written(db: Path) -> int:
    """Rows of the keyless table the database holds (0 while it has none)."""
    try:
        with sqlite3.connect(db, timeout=1) as conn:
            found = conn.execute(f'SELECT count(*) FROM "{table_name(*TABLES[0])}"').fetchone()
            return int(found[0])
    except sqlite3.Error:
        return 0


def kill_mid_play(feed: Path, db: Path) -> None:
    process = subprocess.Popen(
        play_command(feed, db), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None and written(db) < 3000:
            time.sleep(0.02)
        assert process.poll() is None, "the play ended before it could be killed"
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait()


def rows(db: Path) -> dict[tuple[str, str], list[tuple[object, ...]]]:
    with sqlite3.connect(db) as conn:
        found = {
            name: sorted(conn.execute(f'SELECT * FROM "{table_name(*name)}"').fetchall(), key=repr)
            for name in TABLES
        }
    conn.close()
    return found


async def test_a_killed_play_resumed_holds_each_row_once(tmp_path: Path) -> None:
    scenario = tmp_path / "keyless.toml"
    scenario.write_text(SCENARIO)
    feed = tmp_path / "keyless.jsonl"
    generate_feed(scenario, 5, None, feed)
    reference = tmp_path / "reference.db"
    await play_records(f"sqlite:///{reference}", list(read_feed(feed)))

    crashed = tmp_path / "crashed.db"
    kill_mid_play(feed, crashed)
    resumed = subprocess.run(play_command(feed, crashed), capture_output=True, text=True,
                             timeout=300)  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    expected, found = rows(reference), rows(crashed)
    assert len(expected[TABLES[0]]) > 1000
    assert found == expected
