"""DTS Avro encode throughput: Alibaba's and Tencent's Record, 10-column rows.

Each format's encoder (``encode_rows`` on one partition's share of a transaction: BEGIN, the
rows, COMMIT, compiled byte writers) against the same encoder writing the same records through
fastavro's generic ``schemaless_writer`` (the baseline it replaces), in the same run. Shares of
1 row (every row its own transaction: three records per row) and of 10 rows. Rates are rows per
CPU second. Run: ``python bench/bench_dts_avro.py [--rows N] [--repeat N]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_simple_encode import calibrate, ten_column_rows

from tisink.codec.clock import FixedClock
from tisink.codec.config import EncoderConfig
from tisink.codec.dts.avro.formats import new_dts_avro_encoder
from tisink.model.events import RowChangedEvent
from tisink.model.tso import compose_ts

BASE_MS = 1_715_930_562_000
FORMATS = ("alibaba", "tencent")


def shares(rows: list[RowChangedEvent], size: int) -> list[list[RowChangedEvent]]:
    """Transactions of ``size`` rows with realistic TSOs (each its own commit ts)."""
    out = []
    for start in range(0, len(rows), size):
        commit_ts = compose_ts(BASE_MS + start, 0)
        out.append(
            [
                row.replace(start_ts=commit_ts - 100, commit_ts=commit_ts)
                for row in rows[start : start + size]
            ]
        )
    return out


def rate(label: str, txns: Sequence[list[RowChangedEvent]], encode: Callable, repeat: int) -> float:
    """Best rows per CPU second over ``repeat`` passes (process time: other processes on a
    shared machine do not count against us)."""
    rows = sum(map(len, txns))
    best = 0.0
    for _ in range(repeat):
        start = time.process_time()
        for txn in txns:
            encode(txn)
        best = max(best, rows / max(time.process_time() - start, 1e-9))
    print(f"  {label:<46} {best:>10,.0f} rows/s  {1e6 / best:7.2f} us/row")
    return best


def config(fmt: str) -> EncoderConfig:
    if fmt == "tencent":
        return EncoderConfig(protocol="tencent-dts", encoding_format="avro")
    return EncoderConfig(protocol="alibaba-dts")


def run(fmt: str, rows: list[RowChangedEvent], repeat: int) -> None:
    print(f"{fmt} ({len(rows)} rows, best of {repeat})")
    for size in (1, 10):
        txns = shares(rows, size)
        fast = new_dts_avro_encoder(fmt, config(fmt), FixedClock(1))
        ours = rate(f"encode_rows, {size}-row shares", txns, fast.encode_rows, repeat)
        slow = new_dts_avro_encoder(fmt, config(fmt), FixedClock(1), generic=True)
        generic = rate(
            f"baseline: fastavro generic, {size}-row shares",
            txns[: max(len(txns) // 5, 1)],
            slow.encode_rows,
            max(repeat // 2, 1),
        )
        print(f"  {size}-row shares: {ours / generic:.1f}x fastavro's generic writer")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    calibrate()
    rows = ten_column_rows(args.rows)
    for fmt in FORMATS:
        run(fmt, rows, args.repeat)


if __name__ == "__main__":
    main()
