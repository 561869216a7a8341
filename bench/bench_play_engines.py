"""Rows/s of ``tisink play``: inline, Spark local[1] and local[2], on two workloads.

- ``sysbench``: one table (bench/scenarios/sysbench.toml) with the ``index-value`` dispatcher
  over 6 partitions, the shape of most CDC benchmarks;
- ``demo``: the default workload (five tables, every type, DDLs), 3 partitions.

A thin wrapper over ``tisink.bench.engines`` (``tisink bench`` runs the demo): medians of
``--repeat`` plays of each engine, rows/s from the play's start to the last acknowledgement,
p99 acknowledgement latency, and in the note the CPU seconds of the process tree, the writing
phase's rows/s and start-up; Spark against inline. For a command's own cost (its JVM start
included) and a per-stage profile, see ``bench_spark_efficiency.py``.

    python bench/bench_play_engines.py [--rows N] [--repeat N] [--scenario sysbench|demo|all]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from tisink.bench.engines import engine_group
from tisink.bench.output import print_tables

HERE = Path(__file__).resolve().parent
SCENARIOS = {
    "sysbench": (str(HERE / "scenarios" / "sysbench.toml"), 6, "index-value"),
    "demo": ("demo", 3, None),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scenario", choices=[*SCENARIOS, "all"], default="all")
    parser.add_argument("--bootstrap", help="an existing Kafka (default: embedded Tansu)")
    args = parser.parse_args()
    names = list(SCENARIOS) if args.scenario == "all" else [args.scenario]
    results = []
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            workload, partitions, dispatcher = SCENARIOS[name]
            config = None
            if dispatcher:
                config = Path(folder) / f"{name}.toml"
                config.write_text(
                    f'[[sink.dispatchers]]\nmatcher = ["*.*"]\npartition = "{dispatcher}"\n',
                    encoding="utf-8",
                )
            results += engine_group(
                args.bootstrap,
                args.rows,
                args.repeat,
                workload=workload,
                partitions=partitions,
                config=config,
            )
    print_tables(results)


if __name__ == "__main__":
    main()
