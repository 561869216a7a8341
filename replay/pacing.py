"""How fast ``tisink replay`` sends: at line rate (no pacer), at ``--rate`` messages a second,
or at the source's own pace ``--speed`` times faster (the spacing of its record timestamps).

A pacer is shared by every partition's sender. ``wait`` is called before each send with the
records a partition has ready; it sleeps until the first is due and says how many may go now.
A rate pacer hands out slots in order (reserved before sleeping, so partitions never take the
same slot twice) in slices of 10 ms of traffic; a speed pacer maps record timestamps to times
since the replay started, each pass (``--loop``) one source span after the previous one.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Protocol

Clock = Callable[[], float]


class Pacer(Protocol):
    async def wait(self, loop: int, stamps: Sequence[int | None], start: int) -> int:
        """Sleep until record ``start`` (of records with timestamps ``stamps``) is due; return
        how many from it on are due (>= 1)."""
        ...

    def behind_s(self, finished: float) -> float:
        """How much later than planned the last record went, measured at ``finished``."""
        ...


class RatePacer:
    """``rate`` messages a second across every partition."""

    def __init__(self, rate: float, clock: Clock = time.perf_counter) -> None:
        if rate <= 0:
            raise ValueError(f"rate must be positive, got {rate}")
        self.rate = rate
        self._clock = clock
        self._slice = max(1, int(rate / 100))
        self._start: float | None = None
        self._count = 0

    async def wait(self, loop: int, stamps: Sequence[int | None], start: int) -> int:
        if self._start is None:
            self._start = self._clock()
        count = min(len(stamps) - start, self._slice)
        due = self._start + self._count / self.rate
        self._count += count
        delay = due - self._clock()
        if delay > 0:
            await asyncio.sleep(delay)
        return count

    def behind_s(self, finished: float) -> float:
        if self._start is None:
            return 0.0
        return max(0.0, finished - (self._start + self._count / self.rate))


class SpeedPacer:
    """The source's record timestamps, ``speed`` times faster. ``span_ms`` (one pass of the
    source, for ``--loop``) is set by the sender once the first pass has been read."""

    def __init__(self, speed: float, clock: Clock = time.perf_counter) -> None:
        if speed <= 0:
            raise ValueError(f"speed must be positive, got {speed}")
        self.speed = speed
        self._clock = clock
        self._start = 0.0
        self._origin: int | None = None
        self.span_ms = 0.0
        self._last_due = 0.0

    def set_origin(self, timestamp_ms: int) -> None:
        """The timestamp that is due when the replay starts (the source's earliest)."""
        if self._origin is None:
            self._origin = timestamp_ms
            self._start = self._clock()

    def _due(self, loop: int, stamp: int | None) -> float:
        assert stamp is not None and self._origin is not None  # checked by the sender
        return self._start + ((stamp - self._origin) + loop * self.span_ms) / 1000 / self.speed

    async def wait(self, loop: int, stamps: Sequence[int | None], start: int) -> int:
        first = stamps[start]
        if first is not None:
            self.set_origin(first)
        delay = self._due(loop, first) - self._clock()
        if delay > 0:
            await asyncio.sleep(delay)
        now = self._clock() + 0.001
        end = start + 1
        while end < len(stamps) and self._due(loop, stamps[end]) <= now:
            end += 1
        self._last_due = max(self._last_due, self._due(loop, stamps[end - 1]))
        return end - start

    def behind_s(self, finished: float) -> float:
        return max(0.0, finished - self._last_due) if self._origin is not None else 0.0
