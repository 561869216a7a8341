"""The generator's draws take the same bits as ``random.Random``'s methods they replace."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.feed.workload.draws import below, below_of


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**64), st.integers(1, 2**70), st.integers(-1000, 1000))
def test_below_is_randrange_randint_and_choice(seed: int, n: int, low: int) -> None:
    ours, theirs = random.Random(seed), random.Random(seed)
    draw = below_of(n)
    for _ in range(5):
        assert below(ours, n) == theirs.randrange(n)
        assert low + draw(ours) == theirs.randint(low, low + n - 1)
    members = list(range(min(n, 50)))
    assert members[below(ours, len(members))] == theirs.choice(members)
    assert ours.random() == theirs.random()  # and the streams are still in step
