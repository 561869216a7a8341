"""The Python side of a Spark play, step by step in one process, against the inline play.

Spark's Python workers do what the inline engine does plus the exchange. This times each step
in process CPU (another process on a shared machine does not count), on the same rows as
``bench_spark_efficiency.py`` (sysbench-like table, index-value over 6 partitions, file sink,
feed clock), without Spark or its JVM:

- generate: the workload's records alone;
- stage one: generate + route + count (``workload_stage_partition``);
- pickle / unpickle: the shuffle's serialisation as PySpark does it (pickled batches);
- sort: the owners' ``(commitTs, seq)`` order (PySpark sorts in the worker);
- stage two: every owner plays its sorted rows (``play_partition``);
- inline: the whole inline play (generate + play) of the same rows;
- owned task: what one task of two does when Spark plays the workload (it draws every row,
  builds and routes its own, and plays its three owners: ``owned_workload.py``).

The first steps are the stages a feed file's play runs; a workload's play on Spark runs the
owned tasks instead (per phase: ``bench_spark_efficiency.py --profile``). Run under
``valgrind --tool=callgrind`` with ``--repeat 1`` for instruction counts.

    python bench/bench_spark_stages.py [--rows 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import gc
import pickle
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from tisink.core.clock import FeedClock, WallClock
from tisink.feed.inline import play_with_factory
from tisink.feed.spark.owned_workload import play_owned_partitions
from tisink.feed.spark.owner import play_partition
from tisink.feed.spark.routing import make_factory
from tisink.feed.spark.run import _plan
from tisink.feed.spark.sources import WorkloadInput
from tisink.feed.spark.workload_stage import workload_stage_partition
from tisink.feed.workload import generate_records, generate_table_records, load_scenario
from tisink.sink import ChangefeedConfig, SinkFactory

HERE = Path(__file__).resolve().parent
SCENARIO = HERE / "scenarios" / "sysbench.toml"
CONFIG = '[[sink.dispatchers]]\nmatcher = ["*.*"]\npartition = "index-value"\n'
BATCH = 10_000
"""PySpark's shuffle pickles a bucket's items in batches (``partitionBy``'s batch size)."""

T = TypeVar("T")


REPEAT = [3]


def timed(label: str, run: Callable[[], T], out: dict[str, float]) -> T:
    """``run``'s result; its least process CPU over ``REPEAT`` runs (the least disturbed on a
    shared machine) in ``out[label]``."""
    best = float("inf")
    for _ in range(REPEAT[0]):
        gc.collect()
        started = time.process_time()
        result = run()
        best = min(best, time.process_time() - started)
    out[label] = best
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3, help="the least CPU of N runs")
    args = parser.parse_args()
    REPEAT[0] = max(1, args.repeat)
    scenario = load_scenario(str(SCENARIO))
    seed, rows = 1, args.rows
    cpu: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="tisink-stages-") as folder:
        query = "protocol=simple&partition-num=6"
        uri = f"file://{folder}/spark?{query}"
        source = WorkloadInput(scenario, seed, rows, 1)
        factory = make_factory(uri, CONFIG, WallClock())
        plan = _plan(factory, source, CONFIG, True, 1000, None)
        tables = source.groups[0]

        def generate() -> int:
            return sum(1 for _ in generate_table_records(scenario, seed, rows, tables))

        timed("generate", generate, cpu)
        items = timed(
            "stage one (generate, route, count)",
            lambda: list(workload_stage_partition(0, tables, plan, scenario, seed, rows)),
            cpu,
        )
        buckets: dict[int, list[Any]] = {}
        for item in items:
            buckets.setdefault(item[0][0], []).append(item)
        blobs = timed(
            "pickle",
            lambda: {
                owner: [pickle.dumps(part[i : i + BATCH], 5) for i in range(0, len(part), BATCH)]
                for owner, part in buckets.items()
            },
            cpu,
        )
        loaded = timed(
            "unpickle",
            lambda: {o: [x for b in bs for x in pickle.loads(b)] for o, bs in blobs.items()},
            cpu,
        )
        ordered = timed(
            "sort", lambda: {o: sorted(xs, key=lambda kv: kv[0]) for o, xs in loaded.items()}, cpu
        )
        runs = iter(range(1_000_000))

        def stage_two() -> list[Any]:
            fresh = dataclasses.replace(plan, sink_uri=f"file://{folder}/spark{next(runs)}?{query}")
            return [play_partition(o, iter(xs), fresh) for o, xs in sorted(ordered.items())]

        timed("stage two (owners play)", stage_two, cpu)

        def inline() -> None:
            config = ChangefeedConfig.from_toml(CONFIG)
            clock = FeedClock()
            uri = f"file://{folder}/inline{next(runs)}?{query}"
            inline_factory = SinkFactory(uri, config, clock=clock)
            records = generate_records(str(SCENARIO), seed, rows)
            asyncio.run(play_with_factory(records, inline_factory, clock=clock))

        timed("inline play (generate + play)", inline, cpu)

        def owned_task() -> None:
            fresh = dataclasses.replace(plan, sink_uri=f"file://{folder}/owned{next(runs)}?{query}")
            results = play_owned_partitions(0, 2, fresh, scenario, seed, rows)
            failed = [r.failure for r in results if not r.ok]
            assert not failed, failed

        timed("owned task, 1 of 2 (all rows drawn)", owned_task, cpu)
    print(f"sysbench-like table, {rows} rows, 6 partitions, file sink; process CPU")
    for label, seconds in cpu.items():
        print(f"{label:38} {seconds:7.2f} s {seconds / rows * 1e6:7.1f} us/row")
    stages = [k for k in cpu if k != "generate" and not k.startswith(("inline", "owned"))]
    spark_python = sum(cpu[k] for k in stages)
    inline_cpu = cpu["inline play (generate + play)"]
    print(f"{'feed stages, sum':38} {spark_python:7.2f} s {spark_python / inline_cpu:.2f} x inline")
    both = 2 * cpu["owned task, 1 of 2 (all rows drawn)"]
    print(f"{'owned workload, two tasks':38} {both:7.2f} s {both / inline_cpu:.2f} x inline")


if __name__ == "__main__":
    main()
