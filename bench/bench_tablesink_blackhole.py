"""Throughput of TableSink -> BlackholeSink: the framework's own cost per row, no encoding.

Rows are insert-only, 10-column images, one row per transaction, spread round-robin over a few
tables, with a resolved ts every ``--resolve-every`` rows. Rows are built before timing. The
baseline is a bare Python loop over the same rows appending them to a list, measured in the
same run, so the ratio says what the table sink costs over the cheapest possible pass.

    python bench/bench_tablesink_blackhole.py --rows 1000000
"""

from __future__ import annotations

import argparse
import gc
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tisink.eventsink.blackhole import BlackholeSink
from tisink.model.events import ResolvedTs, RowChangedEvent
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table
from tisink.model.tso import compose_ts
from tisink.tablesink import TableSink

COLUMNS = 10
IMAGE_POOL = 1024


def make_tables(count: int) -> list[TableInfo]:
    columns = [ColumnInfo("id", "bigint", nullable=False)] + [
        ColumnInfo(f"c{i}", "varchar", charset="utf8mb4", collate="utf8mb4_bin", length=64)
        for i in range(1, COLUMNS)
    ]
    return [
        make_table(
            "bench", f"t{n}", 100 + n, 1, columns, [IndexInfo("primary", ("id",), True, True)]
        )
        for n in range(count)
    ]


def make_intervals(
    rows: int, tables: list[TableInfo], resolve_every: int
) -> list[tuple[int, list[list[RowChangedEvent]]]]:
    """Per resolved interval: its resolved ts and, per table, the interval's rows."""
    images = [
        {"id": i, **{f"c{c}": f"value-{i}-{c}" for c in range(1, COLUMNS)}}
        for i in range(IMAGE_POOL)
    ]
    base = compose_ts(1_700_000_000_000)
    intervals = []
    for first in range(0, rows, resolve_every):
        per_table: list[list[RowChangedEvent]] = [[] for _ in tables]
        last = min(first + resolve_every, rows)
        for n in range(first, last):
            commit = base + 2 * n + 2
            table = n % len(tables)
            per_table[table].append(
                RowChangedEvent(commit - 1, commit, tables[table], after=images[n % IMAGE_POOL])
            )
        intervals.append((base + 2 * last, per_table))
    return intervals


def run_baseline(intervals: list[tuple[int, list[list[RowChangedEvent]]]]) -> float:
    out: list[RowChangedEvent] = []
    started = time.perf_counter()
    for _, per_table in intervals:
        for rows in per_table:
            for row in rows:
                out.append(row)
    return time.perf_counter() - started


def run_table_sinks(
    intervals: list[tuple[int, list[list[RowChangedEvent]]]],
    tables: list[TableInfo],
    per_row: bool,
) -> tuple[float, int, int]:
    sink = BlackholeSink()
    sinks = [TableSink(t.table_id, sink) for t in tables]
    pairs = list(enumerate(sinks))
    started = time.perf_counter()
    for ts, per_table in intervals:
        resolved = ResolvedTs.normal(ts)
        for index, table_sink in pairs:
            if per_row:
                for row in per_table[index]:
                    table_sink.append_row_changed_events((row,))
            else:
                table_sink.append_row_changed_events(per_table[index])
            table_sink.update_resolved_ts(resolved)
            table_sink.get_checkpoint_ts()
    elapsed = time.perf_counter() - started
    checkpoint = min(s.get_checkpoint_ts().resolved_mark for s in sinks)
    return elapsed, sink.rows, checkpoint


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--resolve-every", type=int, default=1000)
    parser.add_argument(
        "--per-row", action="store_true", help="append rows one call each instead of per interval"
    )
    args = parser.parse_args()

    tables = make_tables(args.tables)
    intervals = make_intervals(args.rows, tables, args.resolve_every)
    rss_rows_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    gc.collect()

    baseline = run_baseline(intervals)
    elapsed, delivered, checkpoint = run_table_sinks(intervals, tables, args.per_row)
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    if delivered != args.rows or checkpoint != intervals[-1][0]:
        raise SystemExit(f"lost rows: delivered {delivered}, checkpoint {checkpoint}")
    mode = "per-row appends" if args.per_row else "one append per table per interval"
    print(f"rows                 {args.rows:,} over {args.tables} tables, {mode}")
    print(f"table sink           {args.rows / elapsed:,.0f} rows/s ({elapsed:.3f} s)")
    print(f"baseline list loop   {args.rows / baseline:,.0f} rows/s ({baseline:.3f} s)")
    print(f"ratio                {elapsed / baseline:.1f}x the bare loop")
    print(f"peak RSS             {peak_kib / 1024:.0f} MiB", end=" ")
    print(f"({rss_rows_kib / 1024:.0f} MiB of it the prebuilt rows)")


if __name__ == "__main__":
    main()
