"""Random draws equal to ``random.Random``'s, without its per-call argument checks.

``randrange(n)``, ``randint(a, b)`` and ``choice(seq)`` all come down to
``Random._randbelow(n)``: ``getrandbits(n.bit_length())`` until the result is below ``n``
(CPython 3.11 to 3.13). The generator draws the same bits through these, so a seed gives the
same feed as with the ``random`` methods, in a fraction of the time.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

ValueGen = Callable[[random.Random], Any]
"""A column's value generator: one value from the table's RNG."""


def below(rng: random.Random, n: int) -> int:
    """``rng.randrange(n)``, drawing the same bits (``n`` > 0)."""
    bits = n.bit_length()
    r = rng.getrandbits(bits)
    while r >= n:
        r = rng.getrandbits(bits)
    return r


def below_of(n: int) -> Callable[[random.Random], int]:
    """``rng.randrange(n)`` for a fixed ``n``, its bit count worked out once."""
    bits = n.bit_length()

    def draw(rng: random.Random) -> int:
        r = rng.getrandbits(bits)
        while r >= n:
            r = rng.getrandbits(bits)
        return r

    return draw
