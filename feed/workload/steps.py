"""The steps of a workload's schedule and the clock that gives them their commit ts.

A step is a transaction of one table (several, all at one commit ts, for a transaction that
spans tables), a DDL, or a resolved ts. Seeds for each stream (the schedule, a table, the
storm) derive from the workload's seed with ``derive_seed``, stable across runs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

from tisink.feed.rate_profile import RateProfile
from tisink.feed.workload.errors import ScenarioError
from tisink.feed.workload.specs import DDLSpec
from tisink.model.events import DDLEvent
from tisink.model.tso import LATEST_TS, LOGICAL_BITS, LOGICAL_MASK, too_late

START_LAG_MS = 3
"""startTs is this many milliseconds before commitTs: a short transaction."""
PRELOAD_TXN_ROWS = 100
"""Rows per transaction of a table's preload."""
NO_TABLE = -1
"""The ``table`` of a step that belongs to no table: a database DDL, a resolved ts."""


def derive_seed(seed: int, *parts: str) -> int:
    """A 64-bit seed for one stream (the schedule, one table) that is stable across runs and
    Python versions (no ``hash()``, which is salted per process)."""
    text = "\x1f".join((str(seed), *parts)).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")


class PlannedTxn(NamedTuple):
    """``size`` rows of ``table`` (a tuple: the schedule makes one per transaction)."""

    table: int
    size: int
    commit_ts: int
    start_ts: int
    preload: bool = False
    """A preload transaction: inserts only."""
    ordinal: int = -1
    """Its place among its table's own transactions, when known (a recorded schedule)."""


@dataclass(frozen=True, slots=True)
class PlannedDDL:
    table: int
    event: DDLEvent
    spec: DDLSpec | None
    """None for the CREATE of a table at the start, and for a database DDL."""


@dataclass(frozen=True, slots=True)
class PlannedResolved:
    """A ``resolved`` record: no later step has a commitTs <= ``commit_ts``."""

    commit_ts: int
    table: int = NO_TABLE


class TsoClock:
    """Commit timestamps advancing at ``rate`` rows per second; strictly increasing, and
    refused (ScenarioError naming ``source``) once they pass the latest commit time."""

    def __init__(
        self,
        start_ms: int,
        rate: float,
        source: str | None = None,
        profile: RateProfile | None = None,
    ) -> None:
        self._source = source
        self._start_ms = start_ms
        self._ms_per_row = 1000.0 / rate
        self._profile = profile
        self._rows = 0
        self._elapsed = 0.0
        self._last = (start_ms << LOGICAL_BITS) - 1

    @property
    def elapsed_ms(self) -> float:
        """Commit-time milliseconds since the start."""
        return self._elapsed

    def next(self, rows: int) -> tuple[int, int]:
        """(commit ts, start ts) of a transaction of ``rows`` rows (a DDL: 0 rows)."""
        if self._profile is None:
            self._elapsed += rows * self._ms_per_row
        else:
            self._rows += rows
            self._elapsed = self._profile.due_s(self._rows) * 1000.0
        ts = (self._start_ms + int(self._elapsed)) << LOGICAL_BITS
        if ts <= self._last:
            ts = self._last + 1  # same millisecond: the logical part counts up
            if ts & LOGICAL_MASK == 0:
                ts += 1
        if ts > LATEST_TS:
            late = too_late(ts)
            raise ScenarioError(f"the schedule reaches commitTs {late}", file=self._source)
        self._last = ts
        return ts, ts - (START_LAG_MS << LOGICAL_BITS)


Step = PlannedTxn | PlannedDDL | PlannedResolved


def with_resolved(steps: Iterator[Step], every_ms: int, start_ms: int) -> Iterator[Step]:
    """``steps`` with a resolved record after the last step of each ``every_ms`` of commit
    time (the ts of that step: everything after commits later)."""
    every = every_ms << LOGICAL_BITS
    next_due = (start_ms << LOGICAL_BITS) + every
    last = 0
    for step in steps:
        ts = step.event.commit_ts if type(step) is PlannedDDL else step.commit_ts  # type: ignore[union-attr]
        if ts >= next_due and last:
            yield PlannedResolved(last)
            next_due += every * (1 + (ts - next_due) // every)
        last = ts
        yield step
