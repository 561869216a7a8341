"""A value the driver writes once and every task maps (``feed/spark/shared_file.py``): the
same value back, its arrays read-only views of the file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.feed.spark.shared_file import read_shared, write_shared
from tisink.feed.workload import load_scenario
from tisink.feed.workload.generator import plan_windows, record_schedule

_ARRAYS = st.lists(
    st.tuples(st.sampled_from(["int64", "uint8", "float64"]), st.integers(0, 5000)), max_size=5
)


@settings(max_examples=30, deadline=None)
@given(arrays=_ARRAYS, extra=st.lists(st.integers() | st.text(), max_size=5))
def test_any_arrays_and_objects_come_back_equal(
    tmp_path_factory: object, arrays: list[tuple[str, int]], extra: list[object]
) -> None:
    folder = tmp_path_factory.mktemp("shared")  # type: ignore[attr-defined]
    rng = np.random.default_rng(len(arrays))
    value = {
        "arrays": [(rng.random(n) * 100).astype(dtype) for dtype, n in arrays],
        "extra": extra,
    }
    write_shared(value, folder / "v.bin")
    got = read_shared(folder / "v.bin")
    assert got["extra"] == extra
    assert len(got["arrays"]) == len(arrays)
    for mine, theirs in zip(got["arrays"], value["arrays"], strict=True):
        assert mine.dtype == theirs.dtype and np.array_equal(mine, theirs)


def test_a_schedule_comes_back_as_views_of_the_file(tmp_path: Path) -> None:
    scenario = load_scenario("demo")
    schedule = record_schedule(scenario, 3, 2000)
    plan_windows(scenario, 3, schedule)
    write_shared(schedule, tmp_path / "schedule.bin")
    got = read_shared(tmp_path / "schedule.bin")
    assert np.array_equal(got.commits, schedule.commits)
    assert got.others == schedule.others
    assert not got.commits.flags.owndata and not got.commits.flags.writeable
