"""The generator's draws take the same bits as ``random.Random``'s methods they replace."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.feed.workload.draws import below, below_code, sample


@settings(deadline=None)
@given(st.integers(0, 2**64), st.integers(1, 2**70), st.integers(-1000, 1000))
def test_below_is_randrange_randint_and_choice(seed: int, n: int, low: int) -> None:
    ours, theirs = random.Random(seed), random.Random(seed)
    for _ in range(5):
        assert below(ours, n) == theirs.randrange(n)
        assert low + below(ours, n) == theirs.randint(low, low + n - 1)
    members = list(range(min(n, 50)))
    assert members[below(ours, len(members))] == theirs.choice(members)
    assert ours.random() == theirs.random()  # and the streams are still in step


@settings(deadline=None)
@given(st.integers(0, 2**64), st.integers(1, 2**40))
def test_below_code_is_randrange(seed: int, n: int) -> None:
    ours, theirs = random.Random(seed), random.Random(seed)
    source = "\n".join(["bits = rng.getrandbits", *below_code("r", n)])
    for _ in range(5):
        scope = {"rng": ours}
        exec(source, scope)
        assert scope["r"] == theirs.randrange(n)
    assert ours.random() == theirs.random()


@settings(deadline=None)
@given(st.integers(0, 2**64), st.integers(0, 120), st.data())
def test_sample_is_random_sample(seed: int, n: int, data: st.DataObject) -> None:
    """Both of CPython's ways: a shrinking pool (small populations) and a set of picks."""
    k = data.draw(st.integers(0, min(n, 30)))
    population = [f"c{i}" for i in range(n)]
    ours, theirs = random.Random(seed), random.Random(seed)
    assert sample(ours, population, k) == theirs.sample(population, k)
    assert ours.random() == theirs.random()
