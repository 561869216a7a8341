"""Helpers of the storage sink tests: a demo feed, its row operations as the sink must store
them (key-changing UPDATEs split), a play into a storage folder, and one killed part way."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from tisink.feed.format.reader import read_feed
from tisink.feed.format.records import FeedDDL, FeedRow
from tisink.feed.workload import generate_feed
from tisink.model.events import RowChangedEvent
from tisink.play.run import PlaySpec, run_play
from tisink.tablesink.split import SPLIT_KEY_UPDATES

KIND = {"INSERT": "I", "UPDATE": "U", "DELETE": "D"}


def demo_feed(directory: Path, rows: int, seed: int = 11) -> Path:
    path = directory / "demo.jsonl"
    generate_feed("demo", seed, rows, path)
    return path


def stored_rows(feed: Path) -> list[RowChangedEvent]:
    """The feed's rows as the storage sink stores them, in feed order."""
    rows: list[RowChangedEvent] = []
    for record in read_feed(feed):
        if isinstance(record, FeedRow):
            halves = SPLIT_KEY_UPDATES.halves(record.row)
            rows.extend(halves if halves is not None else (record.row,))
    return rows


def feed_ddls(feed: Path) -> list[FeedDDL]:
    return [record for record in read_feed(feed) if isinstance(record, FeedDDL)]


def counts(rows: list[RowChangedEvent]) -> Counter[tuple[str, str]]:
    """(schema.table, I/U/D) -> rows."""
    return Counter((row.table.qualified_name, KIND[row.op.value]) for row in rows)


def data_files(out: Path) -> list[Path]:
    """The data files of a storage folder, of both architectures' names (``CDC000001.csv``,
    ``CDC_{dispatcherID}_000001.csv``)."""
    return [p for p in out.rglob("CDC*") if p.suffix != ".index" and not p.name.endswith(".tmp")]


def play(feed: Path, uri: str, **options: Any) -> dict[str, Any]:
    summary = run_play(PlaySpec(feed=feed, sink_uri=uri, engine="inline", clock="feed", **options))
    return summary.to_dict()


def kill_mid_play(feed: Path, out: Path, params: str, files: int = 40) -> None:
    """Play ``feed`` into ``out`` in a child ``tisink`` and SIGKILL it once ``metadata`` and
    ``files`` data files are there."""
    command = [
        sys.executable,
        "-c",
        "from tisink.cli import main; main()",
        "play",
        "--engine",
        "inline",
        "--clock",
        "feed",
        "--no-verify",
        "--feed",
        str(feed),
        "--sink-uri",
        f"file://{out}?{params}",
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            if (out / "metadata").exists() and len(data_files(out)) >= files:
                break
            time.sleep(0.02)
        assert process.poll() is None, "the play ended before it could be killed"
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait()
