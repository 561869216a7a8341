"""DTS Avro encode throughput: Alibaba's and Tencent's Record, 10-column rows.

Each format's encoder (``encode_rows`` on one partition's share of a transaction: BEGIN, the
rows, COMMIT, compiled byte writers) against the same encoder writing the same records through
fastavro's generic ``schemaless_writer`` on generic datums (the baseline it replaces), in the
same run. Transactions of 1 row (three records per row), 10 and 100 rows, each with its own
commit ts. Before timing, both must write the same bytes for every transaction the baseline is
timed on. Each pass starts from a new encoder, so every pass writes exactly the checked bytes.
Rates are rows per CPU second, the median of the passes.
Run: ``python bench/bench_dts_avro.py [--rows N] [--repeat N]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_simple_encode import calibrate, ten_column_rows

from tisink.codec.config import EncoderConfig
from tisink.codec.dts.avro.encoder import DTSAvroEncoder
from tisink.codec.dts.avro.formats import new_dts_avro_encoder
from tisink.core.clock import FixedClock
from tisink.model.events import RowChangedEvent
from tisink.model.tso import compose_ts

BASE_MS = 1_715_930_562_000
FORMATS = ("alibaba", "tencent")
SIZES = (1, 10, 100)
BASELINE_SHARE = 5
"""The baseline is timed on one transaction in this many (it is an order of magnitude slower)."""

Encoders = Callable[[], DTSAvroEncoder]


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


def rate(label: str, txns: Sequence[list[RowChangedEvent]], new: Encoders, repeat: int) -> float:
    """Median rows per CPU second over ``repeat`` passes, each with a new encoder (process
    time: other processes on a shared machine do not count against us)."""
    rows = sum(map(len, txns))
    rates = []
    for _ in range(repeat):
        encode = new().encode_rows
        start = time.process_time()
        for txn in txns:
            encode(txn)
        rates.append(rows / max(time.process_time() - start, 1e-9))
    median = statistics.median(rates)
    print(f"  {label:<44} {median:>10,.0f} rows/s  {1e6 / median:7.2f} us/row")
    return median


def config(fmt: str) -> EncoderConfig:
    if fmt == "tencent":
        return EncoderConfig(protocol="tencent-dts", encoding_format="avro")
    return EncoderConfig(protocol="alibaba-dts")


def same_bytes(txns: Sequence[list[RowChangedEvent]], fast: Encoders, slow: Encoders) -> None:
    """Refuse to time a baseline that does not write our bytes."""
    ours, theirs = fast(), slow()
    for txn in txns:
        if ours.encode_rows(txn).records != theirs.encode_rows(txn).records:
            raise SystemExit(f"the baseline writes other bytes for {txn[0].describe()}")


def run(fmt: str, rows: list[RowChangedEvent], repeat: int) -> None:
    print(f"{fmt} ({len(rows)} rows, median of {repeat})")
    for size in SIZES:
        txns = shares(rows, size)
        timed = txns[: max(len(txns) // BASELINE_SHARE, 1)]

        def fast() -> DTSAvroEncoder:
            return new_dts_avro_encoder(fmt, config(fmt), FixedClock(1))

        def slow() -> DTSAvroEncoder:
            return new_dts_avro_encoder(fmt, config(fmt), FixedClock(1), generic=True)

        same_bytes(timed, fast, slow)
        ours = rate(f"encode_rows, {size}-row transactions", txns, fast, repeat)
        generic = rate(f"baseline: fastavro generic, {size}-row", timed, slow, max(repeat // 2, 1))
        print(f"  {size}-row transactions: {ours / generic:.1f}x fastavro's generic writer")


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
