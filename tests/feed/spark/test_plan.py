"""How many tasks play the partition owners (``plan.owner_tasks``)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tisink.feed.spark.plan import owner_tasks


def _busiest(owners: int, tasks: int) -> int:
    """The owners of the busiest task when owner ``o`` goes to task ``o % tasks``."""
    return max(len(range(task, owners, tasks)) for task in range(tasks))


def test_a_task_that_would_not_shorten_the_play_is_not_started() -> None:
    assert owner_tasks(6, 4) == 3  # 2 + 2 + 2, not 2 + 2 + 1 + 1
    assert owner_tasks(6, 5) == 3
    assert owner_tasks(7, 4) == 4  # 2 + 2 + 2 + 1: three tasks would leave one with 3
    assert owner_tasks(6, 2) == 2
    assert owner_tasks(6, 6) == 6
    assert owner_tasks(12, 16) == 12
    assert owner_tasks(1, 8) == 1
    assert owner_tasks(0, 4) == 1  # a sink without partitions: one task


@given(st.integers(1, 300), st.integers(1, 64))
def test_the_fewest_tasks_as_fast_as_one_a_core(owners: int, cores: int) -> None:
    tasks = owner_tasks(owners, cores)
    one_a_core = min(owners, cores)
    assert 1 <= tasks <= one_a_core
    assert _busiest(owners, tasks) == _busiest(owners, one_a_core)
    if tasks > 1:
        assert _busiest(owners, tasks - 1) > _busiest(owners, one_a_core)
