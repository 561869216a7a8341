"""Random draws equal to ``random.Random``'s, without its per-call argument checks.

``randrange(n)``, ``randint(a, b)`` and ``choice(seq)`` all come down to
``Random._randbelow(n)``: ``getrandbits(n.bit_length())`` until the result is below ``n``
(CPython 3.11 to 3.13). The generator draws the same bits through these, so a seed gives the
same feed as with the ``random`` methods, in a fraction of the time.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, TypeVar

T = TypeVar("T")

ValueGen = Callable[[random.Random], Any]
"""A column's value generator: one value from the table's RNG."""


class ColumnCode(NamedTuple):
    """How to draw a value of one column into the variable ``v`` the builder was given."""

    lines: list[str]
    """Statements that leave the value in ``v``: they draw through the locals ``bits``
    (the RNG's ``getrandbits``) and ``draw`` (its ``random``), or ``rng`` itself, and name
    temporaries starting with ``v``."""
    tables: dict[str, Any]
    """Constants the lines name besides ``SHARED``: the clock's text tables, or a column's
    members (named after ``v``)."""


def below(rng: random.Random, n: int) -> int:
    """``rng.randrange(n)``, drawing the same bits (``n`` > 0)."""
    bits = n.bit_length()
    r = rng.getrandbits(bits)
    while r >= n:
        r = rng.getrandbits(bits)
    return r


def below_code(target: str, n: int) -> list[str]:
    """Source lines that set ``target`` to ``rng.randrange(n)`` through a local ``bits``
    (the RNG's ``getrandbits``), for the generated draw functions."""
    bits = n.bit_length()
    return [f"{target} = bits({bits})", f"while {target} >= {n}:", f"    {target} = bits({bits})"]


def sample(rng: random.Random, population: Sequence[T], k: int) -> list[T]:
    """``rng.sample(population, k)``, drawing the same bits (0 <= ``k`` <= its length)."""
    bits = rng.getrandbits
    n = len(population)
    result: list[T] = []
    small = 21 if k <= 5 else 21 + 4 ** math.ceil(math.log(k * 3, 4))
    if n <= small:  # CPython picks from a shrinking pool here, from a set of picks above
        pool = list(population)
        for left in range(n, n - k, -1):
            width = left.bit_length()
            j = bits(width)
            while j >= left:
                j = bits(width)
            result.append(pool[j])
            pool[j] = pool[left - 1]
        return result
    width = n.bit_length()
    picked: set[int] = set()
    for _ in range(k):
        j = bits(width)
        while j >= n or j in picked:
            j = bits(width)
        picked.add(j)
        result.append(population[j])
    return result
