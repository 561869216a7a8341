"""The window plan of a table: every change touches a row that lives, no row twice in a
transaction, the oldest rows go first, and the plan is the same in any process."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.feed.workload.window import DELETE, INSERT, UPDATE, TableTxns, plan_window

MIXES = st.tuples(st.floats(0.05, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0)).map(
    lambda t: tuple(w / sum(t) for w in t)
)


@st.composite
def tables(draw: st.DrawFn) -> TableTxns:
    sizes = draw(st.lists(st.integers(1, 9), min_size=1, max_size=300))
    preload = [draw(st.booleans()) if i < 5 else False for i in range(len(sizes))]
    resets = draw(st.lists(st.integers(0, len(sizes)), max_size=3, unique=True))
    return TableTxns(np.array(sizes), np.array(preload, dtype=bool), tuple(sorted(resets)))


@settings(max_examples=150, deadline=None)
@given(
    txns=tables(),
    mix=MIXES,
    mutable=st.booleans(),
    law=st.sampled_from(["uniform", "zipf"]),
    zipf_s=st.sampled_from([1.0, 1.1, 2.0]),
    salt=st.integers(0, 2**64 - 1),
)
def test_every_change_touches_a_live_row_once_per_transaction(
    txns: TableTxns, mix, mutable: bool, law: str, zipf_s: float, salt: int
) -> None:
    plan = plan_window(txns, mix, mutable, law, zipf_s, salt)
    live: list[int] = []  # oldest first
    born = 0
    starts = plan.starts.tolist()
    assert starts[-1] == int(txns.sizes.sum())
    for txn in range(len(txns.sizes)):
        if txn in txns.resets:
            live = []
        first, end = starts[txn], starts[txn + 1]
        at_start = list(live)
        touched: set[int] = set()
        for row in range(first, end):
            kind, key = int(plan.kinds[row]), int(plan.keys[row])
            assert key not in touched, "a row touched twice in one transaction"
            touched.add(key)
            if txns.preload[txn]:
                assert kind == INSERT
            if kind == INSERT:
                born += 1
                assert key == born, "sequence numbers are given out in order, never twice"
                live.append(key)
            elif kind == DELETE:
                assert key == live[0], "a DELETE takes the oldest live row"
                live.pop(0)
            else:
                assert kind == UPDATE and mutable
                assert key in live and key in at_start, "an UPDATE takes a row that lived before"
    assert plan.born == born


@settings(max_examples=30, deadline=None)
@given(txns=tables(), mix=MIXES, salt=st.integers(0, 2**64 - 1))
def test_a_plan_is_a_function_of_its_inputs(txns: TableTxns, mix, salt: int) -> None:
    one = plan_window(txns, mix, True, "zipf", 1.1, salt)
    two = plan_window(txns, mix, True, "zipf", 1.1, salt)
    assert np.array_equal(one.kinds, two.kinds) and np.array_equal(one.keys, two.keys)


def test_the_mix_is_kept_where_the_window_holds() -> None:
    """With rows to spare, the kinds follow the mix (the window never runs short)."""
    sizes = np.full(20000, 3)
    txns = TableTxns(sizes, np.arange(20000) < 40, ())
    plan = plan_window(txns, (0.5, 0.4, 0.1), True, "uniform", 1.1, 7)
    counts = np.bincount(plan.kinds[120:], minlength=3) / (len(plan.kinds) - 120)
    assert np.allclose(counts, (0.5, 0.4, 0.1), atol=0.01)
