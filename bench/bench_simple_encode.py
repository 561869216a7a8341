"""Simple Protocol encode throughput, JSON and Avro, on the 10-column rows and the demo rows,
each against its raw baseline (``orjson.dumps``, fastavro's generic writer) in the same run.

A thin wrapper over ``tisink.bench`` (``tisink bench`` runs every protocol); other scripts
import ``ten_column_rows`` and ``calibrate`` from here.

    python bench/bench_simple_encode.py [--rows 20000] [--repeat 5]
"""

from __future__ import annotations

import argparse

from tisink.bench.encoding import encode_case, protocol_formats
from tisink.bench.output import print_tables
from tisink.bench.results import loop_turn_ns
from tisink.bench.rows import demo_txns, ten_column_rows, ten_column_txns

__all__ = ["calibrate", "ten_column_rows"]


def calibrate() -> None:
    """Print the cost of an empty loop turn, to compare figures across machines."""
    print(f"machine: empty loop turn {loop_turn_ns():.1f} ns")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    calibrate()
    results = []
    for name, txns in (
        (f"10-column rows ({args.rows})", ten_column_txns(args.rows)),
        (f"demo rows ({args.rows})", demo_txns(args.rows)),
    ):
        for spec, fmt in protocol_formats():
            if spec.name == "simple":
                results.append(encode_case(name, spec, fmt, txns, args.repeat))
    print_tables(results)


if __name__ == "__main__":
    main()
