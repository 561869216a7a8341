"""Open Protocol encode throughput against Simple JSON's, in the same run (issue 26).

Both encoders take the same transactions (``encode_rows`` per transaction, as the MQ sink calls
them): the demo workload's rows (every column type, six tables) and the 10-column rows. The two
run in alternating rounds and each keeps its best round, so a busy shared machine slows both
alike. Target: Open Protocol at least 0.8 of Simple JSON's rows per CPU second on the demo rows.
Run: ``python bench/bench_open.py [--rows N] [--rounds N]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from tisink.bench.rows import BASE_MS, Txn, demo_txns, ten_column_txns
from tisink.codec.config import EncoderConfig
from tisink.codec.encoder import RowEventEncoder
from tisink.codec.registry import get_protocol
from tisink.core.clock import FixedClock

TARGET = 0.8
PROTOCOLS = ("simple", "open")


def _encoder(protocol: str) -> RowEventEncoder:
    spec = get_protocol(protocol)
    return spec.new_encoder(EncoderConfig(protocol=protocol, time_zone="UTC"), FixedClock(BASE_MS))


def _seconds(encoder: RowEventEncoder, txns: Sequence[Txn]) -> float:
    encode_rows = encoder.encode_rows
    start = time.process_time()
    for txn in txns:
        encode_rows(txn)
    return time.process_time() - start


def measure(txns: Sequence[Txn], rounds: int) -> dict[str, float]:
    """Rows per CPU second of each protocol: the best of ``rounds`` alternating rounds."""
    encoders = {protocol: _encoder(protocol) for protocol in PROTOCOLS}
    for encoder in encoders.values():
        _seconds(encoder, txns)  # renderers compiled, caches warm
    best = dict.fromkeys(PROTOCOLS, float("inf"))
    for _ in range(rounds):
        for protocol, encoder in encoders.items():
            best[protocol] = min(best[protocol], _seconds(encoder, txns))
    rows = sum(map(len, txns))
    return {protocol: rows / seconds for protocol, seconds in best.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    met = True
    for name, txns in (("demo", demo_txns(args.rows)), ("10-column", ten_column_txns(args.rows))):
        rates = measure(txns, args.rounds)
        ratio = rates["open"] / rates["simple"]
        print(f"{name} rows ({args.rows}, best of {args.rounds} rounds)")
        for protocol, rate in rates.items():
            print(f"  {protocol:<8} {rate:>12,.0f} rows/s  {1e6 / rate:7.2f} us/row")
        verdict = ""
        if name == "demo":
            met = ratio >= TARGET
            verdict = f"; target {TARGET}: {'met' if met else 'NOT met'}"
        print(f"  open / simple = {ratio:.2f}{verdict}")
    sys.exit(0 if met else 1)


if __name__ == "__main__":
    main()
