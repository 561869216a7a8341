"""What one Spark task of a generated play costs per row, by the share of partitions it owns.

Runs in this process, without Spark: the driver's plan (``WorkloadInput``, the partition owners
of a ``file://`` sink with index-value over ``--partitions``), then one task's generating and
routing (``owned_workload.route_steps``) owning 0, 1, half and all of the partitions, with its
feed's items counted and dropped (the players' encoding and writing are not in it). The
"owning 0" row is the fixed cost every task pays whatever its share (the scaling model's
floor, feed/spark/README.md); the others add the rows a task builds and routes.

    python bench/bench_spark_task.py [--rows 400000] [--partitions 6] [--workload FILE]
"""

from __future__ import annotations

import argparse
import gc
import tempfile
import time
from pathlib import Path
from typing import Any

from tisink.core.clock import WallClock
from tisink.feed.spark.driver import run as spark_run
from tisink.feed.spark.driver.sources import WorkloadInput
from tisink.feed.spark.tasks.owned_workload import _all_selectable, route_steps
from tisink.feed.spark.tasks.owner_feed import route_all
from tisink.feed.spark.tasks.routing import RowRouter, make_factory
from tisink.feed.workload import load_scenario

HERE = Path(__file__).resolve().parent
CONFIG = '[[sink.dispatchers]]\nmatcher = ["*.*"]\npartition = "index-value"\n'


class _Dropped:
    """A task's feed that counts the items it is given."""

    closed = False

    def __init__(self) -> None:
        self.items = 0

    def put(self, batch: list[Any]) -> None:
        self.items += len(batch)

    def end(self) -> None:
        return None

    def abort(self, reason: str) -> None:
        raise SystemExit(reason)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=400_000)
    parser.add_argument("--partitions", type=int, default=6)
    parser.add_argument("--workload", default=str(HERE / "scenarios" / "sysbench.toml"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tisink-bench-") as tmp:
        uri = f"file://{tmp}/out?protocol=simple&partition-num={args.partitions}"
        factory = make_factory(uri, CONFIG, WallClock())
        scenario = load_scenario(args.workload)
        started = time.process_time()
        source = WorkloadInput(scenario, 1, args.rows)
        plan = spark_run._plan(factory, source, CONFIG, True, 1000, None)
        driver = time.process_time() - started
        planned = _all_selectable(scenario)
        print(f"{Path(args.workload).stem}, {args.rows} rows, {args.partitions} partitions")
        print(f"driver: walk the schedule and plan  {driver / args.rows * 1e6:6.2f} us/row")
        half = args.partitions // 2
        for owned in ([], [0], list(range(half)), list(range(args.partitions))):
            feed = _Dropped()
            sparse = planned and len(owned) < args.partitions
            gc.collect()
            gc.disable()  # as the tasks run (rare_collections)
            started = time.process_time()
            problem = route_all(route_steps(
                plan, scenario, 1, args.rows, RowRouter(plan), owned, feed, source.schedule,
                sparse, planned,
            ))  # fmt: skip
            spent = time.process_time() - started
            gc.enable()
            assert problem is None, problem
            print(
                f"task owning {len(owned)}/{args.partitions}: "
                f"{spent / args.rows * 1e6:6.2f} us/row of the play ({feed.items} items routed)"
            )


if __name__ == "__main__":
    main()
