"""Throughput of the SQLite sink plugin against a raw ``executemany`` of the same rows.

The rows are the demo workload's tables without its DDLs (so every measurement applies the same
row changes to the same tables), generated before timing. Three measurements, each into a fresh
database file with the same settings (WAL, ``synchronous=normal``):

* raw: the statements the sink would run (``INSERT OR REPLACE`` / ``DELETE`` by key), their
  parameters precomputed, one ``executemany`` per run of a statement and one transaction per
  ``--batch-rows`` rows of a table: what SQLite itself costs (also shown with the time to
  build those parameters, i.e. to convert the feed's values, which the sink does as it goes);
* sink: the same rows as single-table transactions handed to ``SQLiteSink.write_events`` and
  flushed: value conversion, batching, the database thread, callbacks;
* play: the feed records through the player and table sinks into the sink (``tisink play``'s
  path without the CLI).

    python bench/bench_sqlite_sink.py --rows 100000
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tisink_sqlite import SQLiteSink
from tisink_sqlite.rows import RowStatements
from tisink_sqlite.schema import ensure_table

from tisink.eventsink.base import CallbackableEvent, StateRef
from tisink.feed import play_inline
from tisink.feed.records import FeedDDL, FeedRecord, FeedRow
from tisink.feed.workload import generate_records, load_scenario
from tisink.model.events import RowChangedEvent, SingleTableTxn
from tisink.model.table import TableInfo
from tisink.tablesink import TableSink


def make_records(rows: int, seed: int) -> list[FeedRecord]:
    scenario = dataclasses.replace(load_scenario("demo"), ddls=())
    return list(generate_records(scenario, seed, rows))


def tables_of(records: list[FeedRecord]) -> list[TableInfo]:
    return [r.ddl.table for r in records if type(r) is FeedDDL and r.ddl.table is not None]


def txns_of(records: list[FeedRecord]) -> list[SingleTableTxn]:
    txns: list[SingleTableTxn] = []
    for record in records:
        if type(record) is not FeedRow:
            continue
        row = record.row
        last = txns[-1] if txns else None
        if last is not None and last.start_ts == row.start_ts and last.table is row.table:
            last.rows.append(row)
        else:
            txns.append(SingleTableTxn(row.start_ts, row.commit_ts, row.table, [row]))
    return txns


def fresh(folder: Path, name: str, tables: list[TableInfo]) -> Path:
    path = folder / name
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    for table in tables:
        ensure_table(conn, table)
    conn.close()
    return path


def run_raw(path: Path, records: list[FeedRecord], batch_rows: int) -> tuple[float, float]:
    """Seconds to build the parameters (feed values converted), seconds to execute them."""
    by_table: dict[int, list[RowChangedEvent]] = {}
    for record in records:
        if type(record) is FeedRow:
            by_table.setdefault(record.row.table.table_id, []).append(record.row)
    work = []
    started = time.perf_counter()
    for rows in by_table.values():
        statements = RowStatements(rows[0].table)
        for start in range(0, len(rows), batch_rows):
            work.append(statements.runs(rows[start : start + batch_rows]))
    convert = time.perf_counter() - started
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA synchronous = normal")
    started = time.perf_counter()
    for runs in work:
        conn.execute("BEGIN IMMEDIATE")
        for sql, params in runs:
            conn.executemany(sql, params)
        conn.execute("COMMIT")
    elapsed = time.perf_counter() - started
    conn.close()
    return convert, elapsed


async def run_sink(path: Path, txns: list[SingleTableTxn], batch_rows: int) -> float:
    sink = SQLiteSink(path, max_batch_rows=batch_rows)
    await sink.open()
    acked = [0]

    def ack() -> None:
        acked[0] += 1

    events = [CallbackableEvent(txn, ack, StateRef()) for txn in txns]
    started = time.perf_counter()
    sink.write_events(events)
    await sink.flush()
    elapsed = time.perf_counter() - started
    await sink.close()
    if acked[0] != len(txns):
        raise SystemExit(f"sink acknowledged {acked[0]} of {len(txns)} transactions")
    return elapsed


async def run_play(path: Path, records: list[FeedRecord], batch_rows: int) -> float:
    sink = SQLiteSink(path, max_batch_rows=batch_rows)
    await sink.open()
    started = time.perf_counter()
    try:
        await play_inline(records, sink, sink, lambda tid: TableSink(tid, sink))
    finally:
        await sink.close()
    return time.perf_counter() - started


def table_rows(path: Path) -> dict[str, list[tuple]]:
    conn = sqlite3.connect(path)
    names = [n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    out = {
        name: sorted(conn.execute(f'SELECT * FROM "{name}"').fetchall(), key=repr)
        for name in names
        if not name.startswith("tidb_cdc")
    }
    conn.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--batch-rows", type=int, default=4096)
    args = parser.parse_args()

    records = make_records(args.rows, args.seed)
    tables = tables_of(records)
    txns = txns_of(records)
    rows = sum(len(t.rows) for t in txns)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        raw_db = fresh(folder, "raw.db", tables)
        convert, raw = run_raw(raw_db, records, args.batch_rows)
        sink_db = fresh(folder, "sink.db", tables)
        sink = asyncio.run(run_sink(sink_db, txns, args.batch_rows))
        play_db = fresh(folder, "play.db", tables)
        play = asyncio.run(run_play(play_db, records, args.batch_rows))
        expected = table_rows(raw_db)
        if table_rows(sink_db) != expected or table_rows(play_db) != expected:
            raise SystemExit("the databases differ: the sink did not apply the same rows")

    print(f"rows                 {rows:,} in {len(txns):,} transactions over {len(tables)} tables")
    print(f"raw executemany      {rows / raw:,.0f} rows/s ({raw:.3f} s)")
    both = raw + convert
    print(f"  + building params  {rows / both:,.0f} rows/s ({both:.3f} s: values converted too)")
    print(f"SQLiteSink           {rows / sink:,.0f} rows/s ({sink:.3f} s)")
    print(f"play -> SQLiteSink   {rows / play:,.0f} rows/s ({play:.3f} s)")
    print(f"ratio                sink {sink / raw:.2f}x raw, play {play / raw:.2f}x raw")


if __name__ == "__main__":
    main()
