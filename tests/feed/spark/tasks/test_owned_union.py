"""The rows the tasks of a generated play route, together, are the play's rows: each once, to
the owner that one task owning every partition sends it to, with the same content. Checked
without Spark (each task's routing run in turn) over random partition and task counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.feed.spark.tasks.test_owned_workload import SELECTED, SELECTED_CONFIG
from tisink.core.clock import WallClock
from tisink.feed.format.records import FeedRow
from tisink.feed.spark.driver import run as spark_run
from tisink.feed.spark.driver.sources import WorkloadInput
from tisink.feed.spark.tasks.owned_workload import route_steps
from tisink.feed.spark.tasks.owner_feed import route_all
from tisink.feed.spark.tasks.routing import RowRouter, make_factory
from tisink.feed.workload import load_scenario, parse_scenario
from tisink.feed.workload.selection import selectable

ROWS = 1200


class _Collect:
    """A task's feed that keeps what it is given."""

    closed = False

    def __init__(self) -> None:
        self.items: list[Any] = []

    def put(self, batch: list[Any]) -> None:
        self.items.extend(batch)


def _routed(scenario: Any, seed: int, partitions: int, tasks: int, folder: Path) -> list[Any]:
    uri = f"file://{folder}/out?protocol=simple&partition-num={partitions}"
    factory = make_factory(uri, SELECTED_CONFIG, WallClock())
    source = WorkloadInput(scenario, seed, ROWS)
    plan = spark_run._plan(factory, source, SELECTED_CONFIG, True, 1000, None)
    planned = all(selectable(scenario, i) for i in range(len(scenario.tables)))
    out = []
    for task in range(tasks):
        owners = plan.owners_of_task(task, tasks)
        feed = _Collect()
        sparse = planned and len(owners) < plan.tasks
        problem = route_all(route_steps(
            plan, scenario, seed, ROWS, RowRouter(plan), owners, feed, source.schedule, sparse,
            planned,
        ))  # fmt: skip
        assert problem is None
        assert {key[0] for key, _ in feed.items} <= set(owners)
        out.extend(item for item in feed.items if type(item[1]) is FeedRow)
    return sorted(((key, item.row.before, item.row.after) for key, item in out), key=lambda x: x[0])


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    partitions=st.integers(1, 8),
    tasks=st.integers(2, 5),
    name=st.sampled_from(["selected", "demo"]),
)
def test_the_tasks_route_every_row_once(
    tmp_path_factory: Any, seed: int, partitions: int, tasks: int, name: str
) -> None:
    scenario = (
        parse_scenario(SELECTED, "selected.toml") if name == "selected" else load_scenario(name)
    )
    folder = tmp_path_factory.mktemp("union")
    whole = _routed(scenario, seed, partitions, 1, folder)
    parts = _routed(scenario, seed, partitions, tasks, folder)
    assert len(whole) >= ROWS * 0.9
    assert parts == whole
