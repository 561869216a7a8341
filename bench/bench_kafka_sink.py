"""TableSink -> MQ sink -> broker against raw aiokafka batch sends and raw confluent-kafka
``produce`` of the same bytes, and Kafka's own ProducerPerformance (10-column rows, Simple JSON,
index-value over 3 partitions), on an embedded broker (``--broker``) or ``--bootstrap``.

A thin wrapper over ``tisink.bench.kafka`` (also ``tisink bench``'s Kafka group); other scripts
import ``raw_aiokafka``, ``broker_address`` and ``report`` from here.

    python bench/bench_kafka_sink.py [--rows 100000] [--repeat 3] [--bootstrap HOST:PORT]
        [--broker apache|tansu]
"""

from __future__ import annotations

import argparse

from tisink.bench.kafka import broker_address, kafka_group, raw_aiokafka
from tisink.bench.output import print_tables
from tisink.bench.rows import ten_column_txns
from tisink.run.embedded import BROKER_KINDS, DEFAULT_BROKER

__all__ = ["broker_address", "raw_aiokafka", "report"]


def report(label: str, rows: int, elapsed: float) -> float:
    """Print and return ``rows`` per second of ``elapsed``."""
    rate = rows / elapsed
    print(f"{label:<24} {rows:>9} rows  {elapsed:7.2f} s  {rate:>11,.0f} rows/s")
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--bootstrap", help="an existing Kafka (default: an embedded one)")
    parser.add_argument(
        "--broker",
        choices=BROKER_KINDS,
        default=DEFAULT_BROKER,
        help="the embedded broker's kind, or what --bootstrap is (the producer tool runs "
        "against Apache Kafka only)",
    )
    args = parser.parse_args()
    txns = ten_column_txns(args.rows)
    print_tables(kafka_group(args.bootstrap, txns, args.repeat, args.broker))


if __name__ == "__main__":
    main()
