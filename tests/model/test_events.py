from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tisink.model import ResolvedTs, compose_ts, logical, physical_ms


def test_batch_resolved_sorts_before_normal_at_same_ts():
    assert ResolvedTs.batch(10, 3) < ResolvedTs.normal(10) < ResolvedTs.batch(11, 0)
    assert ResolvedTs.batch(10, 3).resolved_mark == 9
    assert ResolvedTs.normal(10).resolved_mark == 10


@given(st.integers(0, (1 << 46) - 1), st.integers(0, (1 << 18) - 1))
def test_tso_round_trip(ms, lg):
    ts = compose_ts(ms, lg)
    assert (physical_ms(ts), logical(ts)) == (ms, lg)


def test_tso_of_docs_example():
    # The docs' INSERT: commitTs 447984084414103554 was built at buildTs 1708923662983 (ms),
    # about a second after the commit's physical time.
    assert 0 <= 1708923662983 - physical_ms(447984084414103554) < 5_000
