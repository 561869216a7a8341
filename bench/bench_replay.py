"""Messages/s of ``tisink replay`` with each Kafka client against raw aiokafka batch sends and
raw confluent-kafka ``produce`` of the same bytes, and of ``tisink play`` inline with each
client against both (``tisink.bench.replay``; ``tisink bench`` runs it on fewer messages).

    python bench/bench_replay.py [--rows N] [--loops N] [--repeat N] [--bootstrap HOST:PORT]

The default is 1M messages: the demo workload's 100k rows (about 100k messages) replayed 10
times.
"""

from __future__ import annotations

import argparse

from tisink.bench.output import print_tables
from tisink.bench.replay import replay_group


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--loops", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--bootstrap", help="an existing Kafka (default: embedded Tansu)")
    args = parser.parse_args()
    print_tables(replay_group(args.bootstrap, args.rows, args.loops, args.repeat))


if __name__ == "__main__":
    main()
