"""Injectable clocks for ``buildTs`` and the bootstrap timers.

``FeedClock`` makes a run reproducible: time is the physical part of the latest commit ts seen,
so the same feed yields the same bytes every time (DESIGN.md, "Time").
"""

from __future__ import annotations

import time
from typing import Protocol, runtime_checkable

TSO_LOGICAL_BITS = 18
"""A TiDB TSO is ``physical_ms << 18 | logical``."""


class Clock(Protocol):
    def now_ms(self) -> int:
        """Unix time in milliseconds."""
        ...


@runtime_checkable
class ObservingClock(Protocol):
    """A clock that follows the commit ts a player reaches (the feed clock): the player tells
    it each point where time may move."""

    def now_ms(self) -> int: ...

    def observe_ts(self, ts: int) -> None: ...


class WallClock:
    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000


class FixedClock:
    """A clock that moves only when told to: for tests."""

    def __init__(self, ms: int = 0) -> None:
        self.ms = ms

    def now_ms(self) -> int:
        return self.ms

    def advance(self, ms: int) -> None:
        self.ms += ms


class FeedClock:
    """Time taken from commit timestamps; never goes backwards."""

    def __init__(self) -> None:
        self.ms = 0

    def observe_ts(self, ts: int) -> None:
        ms = ts >> TSO_LOGICAL_BITS
        if ms > self.ms:
            self.ms = ms

    def now_ms(self) -> int:
        return self.ms
