"""The row streams' draws: the generated expressions are ``WordStream``'s, a row's stream is
its own, and the operation streams' ``below`` still takes ``random.Random``'s bits."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.feed.workload.draws import (
    STEP,
    WordStream,
    below,
    below_code,
    bits,
    draw,
    row_seed,
)

STATES = st.integers(0, 2**64 - 1)


def _run(expression_lines: list[str], state: int) -> tuple[object, int]:
    """Run generated statements that leave a value in ``r``: (the value, the new state)."""
    source = "def one(s):\n" + "".join(f"    {line}\n" for line in expression_lines)
    source += "    return r, s\n"
    scope: dict[str, object] = {}
    exec(source, scope)
    return scope["one"](state)  # type: ignore[operator]


@given(STATES, st.integers(1, 2**70))
def test_below_code_is_the_stream_below_and_in_range(state: int, n: int) -> None:
    value, after = _run(below_code("r", n), state)
    stream = WordStream(state)
    assert value == stream.below(n)
    assert after == stream.state
    assert 0 <= value < n  # type: ignore[operator]


@given(STATES, st.integers(1, 128))
def test_bits_and_draw_are_the_streams(state: int, n: int) -> None:
    value, after = _run([f"r = ({bits(n)}, {draw()}, {STEP})"], state)
    stream = WordStream(state)
    assert value == (stream.bits(n), stream.random(), stream.word())
    assert after == stream.state
    assert 0 <= value[0] < 2**n and 0.0 <= value[1] < 1.0  # type: ignore[index,operator]


def test_neighbouring_rows_get_unrelated_streams() -> None:
    """Rows 1..2000 of one table: no two first words alike, and their top bits spread evenly
    (a counter alone, without the finalizer, would give 2000 nearly equal top bytes)."""
    salt = 0x1234_5678_9ABC_DEF0
    firsts = [WordStream(row_seed(salt, number)).word() for number in range(1, 2001)]
    assert len(set(firsts)) == len(firsts)
    buckets = [0] * 16
    for word in firsts:
        buckets[word >> 60] += 1
    assert min(buckets) > 2000 / 16 / 2
    assert row_seed(salt, 7) != row_seed(salt + 1, 7)


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
