"""The random words a row's values are drawn from, and the draws made of them.

A row's values are a pure function of (seed, table, the row's number in its table): its
stream starts from ``row_seed(salt, number)`` (a SplitMix64 finalizer, so neighbouring rows
get unrelated streams) and steps a 64-bit LCG (Knuth's MMIX constants), whose high bits are
the draws. No process has to draw the rows before it to get a row's values, so a Spark task
builds only the rows its partitions own (issue 43), and every process builds the same bytes.

The draws are written out as source text for the generated value functions (``values``,
``inserts``): each is one expression on the local ``s``, the stream's state, with no call.
``WordStream`` is the same stream as a readable object: the tests hold the generated code to
it. Every draw takes a fixed number of words (one, or two above 64 bits), never a retry loop.

``below`` is for the schedule's and a table's operation streams, which stay ``random.Random``
streams (drawn by every process, a few draws per row): it takes the bits ``randrange`` would
take (CPython 3.11 to 3.13), without its argument checks.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, NamedTuple

MASK64 = (1 << 64) - 1
LCG_MULTIPLIER = 6364136223846793005
LCG_INCREMENT = 1442695040888963407
UNIT = 2.0**-53
"""A 53-bit draw times this is a float in [0, 1)."""
_GOLDEN = 0x9E3779B97F4A7C15

STEP = f"(s := (s * {LCG_MULTIPLIER} + {LCG_INCREMENT}) & {MASK64})"
"""The next 64-bit word of the stream in ``s``, as an expression that also advances it."""

ValueGen = Callable[[int], Any]
"""A column's value generator: one value from the stream that starts at the given state."""


class ColumnCode(NamedTuple):
    """How to draw a value of one column into the variable ``v`` the builder was given."""

    lines: list[str]
    """Statements that leave the value in ``v``: they draw with ``draw()``, ``bits(n)`` and
    ``below_code`` expressions on the local ``s``, and name temporaries starting with ``v``."""
    tables: dict[str, Any]
    """Constants the lines name besides ``SHARED``: the clock's text tables, or a column's
    members (named after ``v``)."""


def row_seed(salt: int, number: int) -> int:
    """The start of the stream of row ``number`` of the table whose values use ``salt``."""
    z = (salt + number * _GOLDEN) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def draw() -> str:
    """``random()``: a float in [0, 1) from the next word's top 53 bits."""
    return f"(({STEP} >> 11) * {UNIT!r})"


def bits(n: int) -> str:
    """``getrandbits(n)`` for 1 <= n <= 128: the top ``n`` bits of one word, or of two."""
    if n <= 64:
        return f"({STEP} >> {64 - n})"
    return f"((({STEP} << 64) | {STEP}) >> {128 - n})"


def below_code(target: str, n: int) -> list[str]:
    """A statement that sets ``target`` to a number in [0, n): the word scaled to ``n``
    (one word up to 2**64, two above; the bias is below 2**-64 of ``n``)."""
    if n <= 1 << 64:
        return [f"{target} = ({STEP} * {n}) >> 64"]
    return [f"{target} = ((({STEP} << 64) | {STEP}) * {n}) >> 128"]


class WordStream:
    """The generated draws' stream as an object (for the tests and rare draws)."""

    def __init__(self, state: int) -> None:
        self.state = state

    def word(self) -> int:
        self.state = (self.state * LCG_MULTIPLIER + LCG_INCREMENT) & MASK64
        return self.state

    def random(self) -> float:
        return (self.word() >> 11) * UNIT

    def bits(self, n: int) -> int:
        if n <= 64:
            return self.word() >> (64 - n)
        high = self.word()
        return ((high << 64) | self.word()) >> (128 - n)

    def below(self, n: int) -> int:
        if n <= 1 << 64:
            return (self.word() * n) >> 64
        high = self.word()
        return (((high << 64) | self.word()) * n) >> 128


def below(rng: random.Random, n: int) -> int:
    """``rng.randrange(n)``, drawing the same bits (``n`` > 0)."""
    width = n.bit_length()
    r = rng.getrandbits(width)
    while r >= n:
        r = rng.getrandbits(width)
    return r
