"""Rows/s of ``tisink play``: inline, Spark local[1] and local[2], on two workloads.

    python bench/bench_play_engines.py [--rows N] [--seed N] [--repeat N]
                                       [--scenario sysbench|demo|all]

- ``sysbench``: one table (bench/scenarios/sysbench.toml) with the ``index-value`` dispatcher
  over 6 partitions, the shape of most CDC benchmarks;
- ``demo``: the default workload (five tables, every type, DDLs), 3 partitions.

Every play writes Simple JSON to its own topic of an embedded broker (a new one for each
engine and scenario), as ``tisink play`` does, without verify. ``rows/s`` is the summary's
``rows_per_s``: rows from the first row sent to the last acknowledgement. ``end-to-end``
divides the rows by the whole play, start-up included (for Spark: planning, stage one and
the shuffle, but not the session start, which a warm-up play pays). Each figure is the best
of ``--repeat`` plays, the median in brackets: on a shared machine the best one is the least
disturbed. Prints the figures and the ratios the Spark engine aims at.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import uuid
from pathlib import Path

from tisink.broker import start_broker
from tisink.play import PlayOptions, run_play
from tisink.summary import RunSummary

HERE = Path(__file__).resolve().parent
SCENARIOS = {
    "sysbench": (str(HERE / "scenarios" / "sysbench.toml"), 6, "index-value"),
    "demo": ("demo", 3, None),
}
ENGINES = (("inline", None), ("spark", "local[1]"), ("spark", "local[2]"))


def _play(
    bootstrap: str, scenario: str, engine: tuple[str, str | None], rows: int, seed: int
) -> RunSummary:
    workload, partitions, dispatcher = SCENARIOS[scenario]
    topic = f"bench-{scenario}-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory() as folder:
        config = None
        if dispatcher:
            config = Path(folder) / "changefeed.toml"
            config.write_text(
                f'[[sink.dispatchers]]\nmatcher = ["*.*"]\npartition = "{dispatcher}"\n',
                encoding="utf-8",
            )
        options = PlayOptions(
            workload=workload,
            rows=rows,
            seed=seed,
            sink_uri=f"kafka://{bootstrap}/{topic}?protocol=simple&partition-num={partitions}",
            config_path=config,
            engine=engine[0],
            master=engine[1] or "local[*]",
            verify_after=False,
        )
        return run_play(options)


def _fresh_session(master: str | None) -> None:
    """One SparkContext per process: stop the last one so ``master`` takes effect."""
    if master is None:
        return
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        active.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scenario", choices=[*SCENARIOS, "all"], default="all")
    args = parser.parse_args()
    scenarios = list(SCENARIOS) if args.scenario == "all" else [args.scenario]
    runs: dict[tuple[str, str], list[RunSummary]] = {}
    for engine in ENGINES:
        _fresh_session(engine[1])
        name = engine[1] or engine[0]
        for scenario in scenarios:
            # a broker of its own: the in-memory broker slows down as it fills up
            with start_broker() as broker:
                if engine[1] is not None:
                    _play(broker.bootstrap, scenario, engine, 2000, args.seed)  # warm-up
                runs[(scenario, name)] = [
                    _play(broker.bootstrap, scenario, engine, args.rows, args.seed)
                    for _ in range(args.repeat)
                ]
    print(f"{'scenario':10s} {'engine':9s} {'rows/s':>17s} {'startup s':>10s} {'end-to-end':>17s}")
    best: dict[tuple[str, str], float] = {}
    for (scenario, name), summaries in runs.items():
        rates = [s.rows_per_s for s in summaries]
        ends = [s.rows / s.elapsed_s for s in summaries if s.elapsed_s]
        best[(scenario, name)] = max(rates)
        startup = statistics.median(s.startup_s for s in summaries)
        print(
            f"{scenario:10s} {name:9s} {max(rates):8.0f} [{statistics.median(rates):6.0f}] "
            f"{startup:10.2f} {max(ends):8.0f} [{statistics.median(ends):6.0f}]"
        )
    for scenario in scenarios:
        inline, one, two = (best[(scenario, n)] for n in ("inline", "local[1]", "local[2]"))
        print(
            f"{scenario}: local[2] / inline = {two / inline:.2f} (target >= 1.5), "
            f"local[2] / local[1] = {two / one:.2f} (target >= 1.6)"
        )


if __name__ == "__main__":
    main()
