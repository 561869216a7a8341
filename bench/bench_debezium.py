"""Debezium JSON encode throughput: the 10-column rows, schema off and on.

Baseline in the same run: ``orjson.dumps`` of the finished key and value dicts of each row (the
floor for any encoder built on orjson; with the schema on it re-serialises the whole schema
block, which the encoder caches as bytes per table version). Targets (issue 11): schema off >=
150k rows/s, schema on >= 60k rows/s per core. Run: ``python bench/bench_debezium.py``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_simple_encode import calibrate, ten_column_rows

from tisink.codec.config import EncoderConfig
from tisink.codec.debezium.encoder import DebeziumEncoder
from tisink.codec.debezium.options import DebeziumOptions
from tisink.core.clock import FixedClock
from tisink.model import RowChangedEvent

TARGETS = {False: 150_000, True: 60_000}


def rate(label: str, count: int, run: Callable[[], object], repeat: int) -> float:
    """Best rows per CPU second over ``repeat`` passes (process time: other processes on a
    shared machine do not count against us)."""
    best = 0.0
    for _ in range(repeat):
        start = time.process_time()
        run()
        best = max(best, count / max(time.process_time() - start, 1e-9))
    print(f"  {label:<46} {best:>12,.0f} rows/s  {1e6 / best:7.2f} us/row")
    return best


def batches(rows: Sequence[RowChangedEvent], size: int) -> list[Sequence[RowChangedEvent]]:
    return [rows[i : i + size] for i in range(0, len(rows), size)]


def run(rows: list[RowChangedEvent], with_schema: bool, batch: int, repeat: int) -> bool:
    """Print the figures of one setting; True when the target is met."""
    options = DebeziumOptions(disable_schema=not with_schema)
    config = EncoderConfig(protocol="debezium", time_zone="UTC", options=options)
    encoder = DebeziumEncoder(config, FixedClock(1))
    print(f"schema {'on' if with_schema else 'off'} ({len(rows)} rows, best of {repeat})")
    groups = batches(rows, batch)

    def encode_all() -> None:
        for group in groups:
            encoder.encode_rows(group)

    def encode_each() -> None:
        encode_rows = encoder.encode_rows
        for row in rows:
            encode_rows((row,))

    ours = rate(f"encode_rows, {batch} rows per call", len(rows), encode_all, repeat)
    single = rate("encode_rows, 1 row per call", len(rows), encode_each, repeat)
    finished: list[tuple[Any, Any]] = []
    for record in encoder.encode_rows(rows).records:
        finished.append((orjson.loads(record[0] or b"null"), orjson.loads(record[1] or b"null")))

    def floor() -> None:
        dumps = orjson.dumps
        for key, value in finished:
            dumps(key)
            dumps(value)

    baseline = rate("baseline: orjson.dumps(finished key, value)", len(rows), floor, repeat)
    target = TARGETS[with_schema]
    met = min(ours, single) >= target
    print(
        f"  {ours / baseline:.2f}x of the orjson floor; target {target:,} rows/s: "
        f"{'met' if met else 'NOT met'}"
    )
    return met


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--batch", type=int, default=50, help="rows per encode_rows call")
    args = parser.parse_args()
    calibrate()
    rows = ten_column_rows(args.rows)
    results = [run(rows, with_schema, args.batch, args.repeat) for with_schema in (False, True)]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
