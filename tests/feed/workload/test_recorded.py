"""A recorded schedule walked again (``recorded.py``): in runs of one table's transactions."""

from __future__ import annotations

import zlib
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.feed.workload import load_scenario, recorded
from tisink.feed.workload.recorded import _RUN, RecordedSchedule, TxnRun, every_transaction
from tisink.feed.workload.schedule import plan
from tisink.feed.workload.steps import PlannedTxn

SEED = 5


def _schedule() -> tuple[list[object], RecordedSchedule]:
    steps = list(plan(load_scenario("demo"), SEED, 6000))
    return steps, RecordedSchedule(steps)


STEPS, SCHEDULE = _schedule()


def _txn(step: PlannedTxn) -> tuple[int, int, int, int, bool]:
    return step.table, step.size, step.commit_ts, step.start_ts, step.preload


def test_the_walk_gives_back_the_steps_it_recorded() -> None:
    walked: list[object] = []
    for item in SCHEDULE.sparse_runs(every_transaction):
        walked += item.txns() if type(item) is TxnRun else [item]
    assert len(walked) == len(STEPS)
    assert len({step.table for step in walked if type(step) is PlannedTxn}) > 1
    seen: dict[int, int] = {}
    for again, step in zip(walked, STEPS, strict=True):
        if type(step) is not PlannedTxn:
            assert again is step
            continue
        assert type(again) is PlannedTxn
        assert _txn(again) == _txn(step)
        assert again.ordinal == seen.get(step.table, 0)  # its place among its table's own
        seen[step.table] = again.ordinal + 1


def _visit_some(every: int, salt: int) -> Callable[[int, int], np.ndarray]:
    """A walk's visit of the positions a hash of theirs picks."""

    def visit(start: int, end: int) -> np.ndarray:
        picked = [p for p in range(start, end) if _picked(p, every, salt)]
        return np.array(picked, dtype=np.int64)

    return visit


def _picked(position: int, every: int, salt: int) -> bool:
    return zlib.crc32(b"%d" % (position ^ salt)) % every == 0


def _key(step: object) -> object:
    return _txn(step) if type(step) is PlannedTxn else step  # type: ignore[arg-type]


def _flat_runs(every: int, salt: int) -> tuple[list[object], list[int]]:
    """The walk's steps with each run's transactions in its place; the runs' lengths."""
    flat: list[object] = []
    lengths: list[int] = []
    for item in SCHEDULE.sparse_runs(_visit_some(every, salt)):
        if type(item) is TxnRun:
            run = list(item.txns())
            assert {txn.table for txn in run} == {item.table}
            lengths.append(len(run))
            flat += run
        else:
            flat.append(item)
    return flat, lengths


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 7), st.integers(0, 1 << 30))
def test_runs_hold_one_tables_visited_transactions_in_order(every: int, salt: int) -> None:
    position, wanted = 0, []
    for step in STEPS:
        if type(step) is PlannedTxn:
            if _picked(position, every, salt):
                wanted.append(step)
            position += 1
        else:
            wanted.append(step)
    flat, lengths = _flat_runs(every, salt)
    assert [_key(step) for step in flat] == [_key(step) for step in wanted]
    assert all(0 < length <= _RUN for length in lengths)


def test_a_run_is_cut_at_its_longest(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(recorded, "_RUN", 2)
    flat, lengths = _flat_runs(1, 0)
    assert max(lengths) == 2
    assert [_key(step) for step in flat] == [_key(step) for step in STEPS]
