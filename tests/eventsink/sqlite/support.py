"""Helpers of the SQLite plugin tests: URIs, the stored checkpoint, transaction boundaries."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from tisink_sqlite import SQLiteSink

from tisink.feed import play_with_factory
from tisink.feed.records import FeedRecord, FeedRow
from tisink.sink import SinkFactory


def uri(path: Path, params: str = "") -> str:
    return f"sqlite:///{path}" + (f"?{params}" if params else "")  # absolute: four slashes


def stored_checkpoint(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT checkpoint_ts FROM tidb_cdc_checkpoint").fetchone()[0]


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


async def play_records(db: Path, records: Sequence[FeedRecord]) -> SQLiteSink:
    """A fresh factory (as a restarted ``tisink play``): returns the sink after the play."""
    factory = SinkFactory(uri(db))
    sink = await factory.create_event_sink()
    assert isinstance(sink, SQLiteSink)
    await play_with_factory(records, factory)
    return sink
