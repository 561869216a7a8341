"""Benchmark of the feed layer: reading (parse + validate) and playing into a blackhole sink.

Run: ``python bench/bench_feed.py [ROWS]``. Writes a temporary feed of ROWS rows over three
tables of mixed types, then reports rows/s for ``read_feed`` alone and for a full inline play
(TableSink + BlackholeSink + BlackholeDDLSink), the floor the real sinks build on.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

from tisink.bench.rows import TEXT
from tisink.ddlsink.blackhole import BlackholeDDLSink
from tisink.eventsink.blackhole import BlackholeSink
from tisink.feed import FeedWriter, play_inline, read_feed
from tisink.model import (
    ColumnInfo,
    DDLEvent,
    DDLType,
    IndexInfo,
    RowChangedEvent,
    compose_ts,
    make_table,
)
from tisink.tablesink import TableSink


def _tables() -> list:
    columns = [
        ColumnInfo("id", "bigint", length=20, nullable=False),
        ColumnInfo("name", "varchar", length=64, **TEXT),
        ColumnInfo("qty", "int", length=11),
        ColumnInfo("price", "decimal", length=10, decimal=2),
        ColumnInfo("at", "timestamp", length=19),
        ColumnInfo("state", "enum", elements=("new", "paid", "sent"), **TEXT),
        ColumnInfo("tags", "set", elements=("a", "b", "c"), **TEXT),
        ColumnInfo("blob", "varbinary", length=32),
        ColumnInfo("doc", "json"),
    ]
    primary = [IndexInfo("primary", ("id",), unique=True, primary=True)]
    return [make_table("bench", f"t{i}", 100 + i, 1, columns, primary) for i in range(3)]


def write_feed(path: Path, rows: int) -> None:
    tables = _tables()
    ts = compose_ts(1_700_000_000_000)
    with FeedWriter(path) as writer:
        for table in tables:
            ts += 1
            writer.write_ddl(DDLEvent(ts, DDLType.CREATE, "CREATE TABLE", table, start_ts=ts))
        for n in range(rows):
            if n % 4 == 0:
                ts += 1 << 18
            after = {
                "id": n,
                "name": f"name {n}",
                "qty": n % 1000,
                "price": f"{n % 10000}.{n % 100:02d}",
                "at": "2024-02-26 08:32:23",
                "state": "paid",
                "tags": ["a", "c"],
                "blob": "AAECAwQFBgc=",
                "doc": {"n": n, "ok": True},
            }
            writer.write_row(RowChangedEvent(ts - 1, ts, tables[n % 3], None, after))


async def play(path: Path) -> int:
    events = BlackholeSink()
    stats = await play_inline(
        read_feed(path), events, BlackholeDDLSink(), lambda tid: TableSink(tid, events)
    )
    return stats.rows


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.jsonl"
        started = time.perf_counter()
        write_feed(path, rows)
        wrote = time.perf_counter() - started
        started = time.perf_counter()
        read = sum(1 for _ in read_feed(path))
        reading = time.perf_counter() - started
        started = time.perf_counter()
        played = asyncio.run(play(path))
        playing = time.perf_counter() - started
    assert played == rows and read == rows + 3
    print(f"rows: {rows}")
    print(f"write:          {rows / wrote:>10,.0f} rows/s")
    print(f"read+validate:  {rows / reading:>10,.0f} rows/s")
    print(f"play blackhole: {rows / playing:>10,.0f} rows/s")


if __name__ == "__main__":
    main()
