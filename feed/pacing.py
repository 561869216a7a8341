"""Paced load: ``--rate R`` rows per second (or a rate profile, ``feed/rate_profile.py``), held
by the player awaiting, never blocking.

The schedule starts at the first row: ``n`` rows are due ``n / R`` seconds after it (with a
profile, when its stages say). The player
asks the pacer every ``chunk`` rows (about 5 ms of rows); when it is ahead it first hands what
it has to the sinks (so rows leave at the rate, not in bursts at resolved ts) and then sleeps on
the event loop, where the sinks' acknowledgements keep flowing. A player that cannot keep up
never sleeps; ``behind_s`` says how much longer than planned its rows took.

``target`` is the rate the play was asked for over the time it ran (``played_s``: the schedule's
time for its rows, or longer when it fell behind): a steady rate itself, a profile's mean over
those seconds, not over a whole round of stages a short play never reached.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable

from tisink.feed.rate_profile import RateProfile

CHUNK_SECONDS = 0.005
"""How much of the schedule passes between two checks: a flush every ~5 ms keeps each second's
rows within a fraction of a percent of the rate."""


class Pacer:
    """Holds one player to ``rate`` rows per second, or to a rate profile's stages.
    ``clock`` is monotonic seconds and ``sleep`` an awaitable sleep (both injectable for
    tests)."""

    def __init__(
        self,
        rate: float | RateProfile,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._profile = rate if isinstance(rate, RateProfile) else None
        steady = rate.peak if isinstance(rate, RateProfile) else rate
        if not (math.isfinite(steady) and steady > 0):
            raise ValueError(f"a rate must be a positive number of rows/s, got {steady}")
        self.rate = steady
        """Rows per second (a profile's peak: ``chunk`` is sized by it)."""
        self.chunk = max(1, int(steady * CHUNK_SECONDS))
        """Rows between two calls of ``pace``."""
        self._clock = clock
        self._sleep = sleep
        self._start: float | None = None
        self.behind_s = 0.0
        """How much longer than ``rows / rate`` the rows took (0 when the player kept up)."""
        self._played_s: float | None = None
        """Set by ``finish``: the seconds of the schedule the play ran."""

    def start(self) -> None:
        """The first row is being taken: the schedule starts now."""
        if self._start is None:
            self._start = self._clock()

    async def pace(self, rows: int, hand_over: Callable[[], Awaitable[None]]) -> None:
        """``rows`` have been taken: wait until they are due, after ``hand_over`` (the
        player's flush of complete transactions) when there is time to wait."""
        wait = self._ahead(rows)
        if wait <= 0:
            await asyncio.sleep(0)
            return
        await hand_over()
        wait = self._ahead(rows)
        if wait > 0:
            await self._sleep(wait)

    def finish(self, rows: int) -> None:
        """All ``rows`` were taken: note how far behind the schedule that was, and how long
        the play ran on it."""
        if self._start is not None and rows:
            self.behind_s = max(0.0, -self._ahead(rows))
            self._played_s = self._due_s(rows) + self.behind_s

    @property
    def played_s(self) -> float:
        """Seconds of the schedule the play ran: the time its rows were due by, or the time
        they took when that was longer; until ``finish``, the time since the first row (a
        play that failed part way)."""
        if self._played_s is not None:
            return self._played_s
        return 0.0 if self._start is None else self._clock() - self._start

    @property
    def target(self) -> float:
        """The rate the play was asked for over ``played_s`` (rows/s)."""
        if self._profile is None:
            return self.rate
        return self._profile.mean_over(self.played_s)

    def _ahead(self, rows: int) -> float:
        if self._start is None:
            self.start()
        assert self._start is not None
        return self._start + self._due_s(rows) - self._clock()

    def _due_s(self, rows: int) -> float:
        """Seconds after the schedule's start at which ``rows`` are due."""
        return rows / self.rate if self._profile is None else self._profile.due_s(rows)
