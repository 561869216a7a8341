"""Rate profiles: a load that changes over time, as stages (ShadowTraffic-style).

``--rate 5000`` holds one rate; ``--rate 'ramp:1000-5000/30s,hold:5000/60s,spike:20000/2s,
idle:10s'`` runs the stages in order and then starts over. The same text shapes the commit-time
spacing of a generated feed (a scenario's ``rate_profile``) and the pacing of ``tisink play``:
both ask when the ``n``-th row is due (``due_s``), so a feed's commit times and a play's send
times follow the same curve.

- ``hold:R/T`` and ``spike:R/T``: R rows/s for T (a spike is a hold that is meant to be short).
- ``ramp:R1-R2/T``: the rate moves linearly from R1 to R2 over T.
- ``idle:T``: no rows for T (a gap in the commit times, a pause of the play).

T is seconds, or a number with ``ms``, ``s`` or ``m``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*(ms|s|m)?\s*$")
_UNIT_S = {"ms": 0.001, "s": 1.0, "m": 60.0, None: 1.0}


class RateProfileError(ValueError):
    """A profile text that cannot be parsed; the message names the stage."""


@dataclass(frozen=True)
class Stage:
    """``duration_s`` seconds whose rate moves linearly from ``start`` to ``end`` rows/s."""

    kind: str
    start: float
    end: float
    duration_s: float

    @property
    def rows(self) -> float:
        return (self.start + self.end) / 2 * self.duration_s

    def rows_within(self, seconds: float) -> float:
        """Rows the stage asks for in its first ``seconds`` (0 <= seconds <= its duration):
        the area under its line."""
        slope = (self.end - self.start) / self.duration_s
        return (self.start + slope * seconds / 2) * seconds

    def seconds_for(self, rows: float) -> float:
        """Seconds into the stage at which ``rows`` of its rows are done (0 <= rows <=
        ``self.rows``)."""
        if self.start == self.end:
            return rows / self.start if self.start else 0.0
        slope = (self.end - self.start) / self.duration_s
        # rows = start t + slope t^2 / 2, solved for t >= 0
        root = math.sqrt(max(0.0, self.start * self.start + 2 * slope * rows))
        return min(self.duration_s, (root - self.start) / slope)


@dataclass(frozen=True)
class RateProfile:
    """Stages run in order, then again from the first; ``text`` is how they were written."""

    stages: tuple[Stage, ...]
    text: str

    @property
    def peak(self) -> float:
        """The highest rate of any stage (rows/s)."""
        return max(max(s.start, s.end) for s in self.stages)

    @property
    def mean(self) -> float:
        """Rows per second over one round of the stages."""
        return self._cycle_rows / self._cycle_s

    def rows_by(self, seconds: float) -> float:
        """Rows the profile asks for in its first ``seconds``, rounds included: the integral
        of its rate from the start."""
        if self.steady:
            return self.stages[0].start * seconds
        rounds, rest = divmod(seconds, self._cycle_s)
        rows = rounds * self._cycle_rows
        for stage in self.stages:
            if rest <= stage.duration_s:
                return rows + stage.rows_within(rest)
            rows += stage.rows
            rest -= stage.duration_s
        return rows  # float rounding left a sliver of time past the last stage

    def mean_over(self, seconds: float) -> float:
        """Rows per second over the first ``seconds`` of the profile: what a play that ran
        that long was asked for (a short play never reaches the later stages, so the
        round's ``mean`` would be no target for it); the starting rate for no time at all."""
        if seconds <= 0:
            return self.stages[0].start
        return self.rows_by(seconds) / seconds

    @property
    def steady(self) -> bool:
        return len(self.stages) == 1 and self.stages[0].kind == "steady"

    @property
    def _cycle_rows(self) -> float:
        return sum(s.rows for s in self.stages)

    @property
    def _cycle_s(self) -> float:
        return sum(s.duration_s for s in self.stages)

    def due_s(self, rows: float) -> float:
        """Seconds after the start at which ``rows`` rows are done."""
        if self.steady:
            return rows / self.stages[0].start
        cycle_rows = self._cycle_rows
        rounds, rest = divmod(rows, cycle_rows)
        elapsed = rounds * self._cycle_s
        for stage in self.stages:
            if stage.rows > 0 and rest <= stage.rows:
                return elapsed + stage.seconds_for(rest)
            rest -= stage.rows
            elapsed += stage.duration_s
        return elapsed  # float rounding left a sliver of rows past the last stage


def parse_rate_profile(text: str) -> RateProfile:
    """A profile from its text: a positive number (steady rows/s) or stages joined by ``,``."""
    text = text.strip()
    try:
        rate = float(text)
    except ValueError:
        pass
    else:
        if not (math.isfinite(rate) and rate > 0):
            raise RateProfileError(f"a rate must be a positive number of rows/s, got {text!r}")
        return RateProfile((Stage("steady", rate, rate, 1.0),), text)
    stages = tuple(_stage(part.strip()) for part in text.split(","))
    if sum(s.rows for s in stages) <= 0:
        raise RateProfileError(f"rate profile {text!r} has no stage with rows")
    return RateProfile(stages, text)


def _stage(part: str) -> Stage:
    kind, _, spec = part.partition(":")
    kind = kind.strip().lower()
    try:
        if kind == "idle":
            return Stage(kind, 0.0, 0.0, _duration(spec))
        rates, slash, duration = spec.rpartition("/")
        if not slash:
            raise RateProfileError("needs /DURATION")
        if kind == "ramp":
            low, dash, high = rates.partition("-")
            if not dash:
                raise RateProfileError("needs FROM-TO rows/s")
            start, end = _rate(low), _rate(high)
        elif kind in ("hold", "spike"):
            start = end = _rate(rates)
        else:
            raise RateProfileError("is not ramp, hold, spike or idle")
        return Stage(kind, start, end, _duration(duration))
    except RateProfileError as err:
        raise RateProfileError(
            f"rate stage {part!r} {err} (e.g. ramp:1000-5000/30s, hold:5000/60s, "
            "spike:20000/2s, idle:10s)"
        ) from None


def _rate(text: str) -> float:
    try:
        rate = float(text)
    except ValueError:
        raise RateProfileError(f"has a rate {text.strip()!r} that is not a number") from None
    if not (math.isfinite(rate) and rate >= 0):
        raise RateProfileError(f"has a rate {rate} below 0")
    return rate


def _duration(text: str) -> float:
    match = _DURATION.match(text)
    if match is None:
        raise RateProfileError(f"has a duration {text.strip()!r} (expected 30s, 500ms, 2m)")
    seconds = float(match.group(1)) * _UNIT_S[match.group(2)]
    if seconds <= 0:
        raise RateProfileError("has a zero duration")
    return seconds
