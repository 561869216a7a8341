"""The global schedule of a workload: which table commits how many rows at which TSO.

The schedule draws from its own RNG (seeded from the seed alone) and never from a table's, so
every process that generates some of the tables walks the same schedule and assigns the same
commit timestamps: a feed generated in partitions merges into the feed generated in one go.
Each transaction and each DDL gets its own commitTs; physical time advances by
``rows / rate`` seconds per transaction.
"""

from __future__ import annotations

import bisect
import hashlib
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

from tisink.feed.workload.draws import below
from tisink.feed.workload.errors import ScenarioError
from tisink.feed.workload.scenario import DDLSpec, Scenario
from tisink.feed.workload.timeline import SchemaTimeline
from tisink.model.events import DDLEvent
from tisink.model.tso import LATEST_TS, LOGICAL_BITS, LOGICAL_MASK, too_late

START_LAG_MS = 3
"""startTs is this many milliseconds before commitTs: a short transaction."""


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


@dataclass(frozen=True, slots=True)
class PlannedDDL:
    table: int
    event: DDLEvent
    spec: DDLSpec | None
    """None for the CREATE of a table at the start."""


class TsoClock:
    """Commit timestamps advancing at ``rate`` rows per second; strictly increasing, and
    refused (ScenarioError naming ``source``) once they pass the latest commit time."""

    def __init__(self, start_ms: int, rate: float, source: str | None = None) -> None:
        self._source = source
        self._start_ms = start_ms
        self._ms_per_row = 1000.0 / rate
        self._elapsed = 0.0
        self._last = (start_ms << LOGICAL_BITS) - 1

    def next(self, rows: int) -> tuple[int, int]:
        """(commit ts, start ts) of a transaction of ``rows`` rows (a DDL: 0 rows)."""
        self._elapsed += rows * self._ms_per_row
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


def plan(
    scenario: Scenario, seed: int, rows: int | None = None
) -> Iterator[PlannedTxn | PlannedDDL]:
    """The schedule of ``scenario``: CREATEs of the initial tables, then transactions with the
    DDLs placed at their fraction of the ``rows`` row changes."""
    total = scenario.rows if rows is None else rows
    rng = random.Random(derive_seed(seed, "schedule"))
    clock = TsoClock(scenario.start_ms, scenario.rate, scenario.source)
    timeline = SchemaTimeline(scenario)
    for table, spec in enumerate(scenario.tables):
        if not spec.deferred:
            yield PlannedDDL(table, timeline.create(table, *clock.next(0)), None)
    ddls = sorted(scenario.ddls, key=lambda d: d.at)
    thresholds = [round(d.at * total) for d in ddls]
    pending = 0
    emitted = 0
    picker = _Picker(scenario, timeline)
    while True:
        while pending < len(ddls) and (thresholds[pending] <= emitted or not picker.any_live()):
            ddl = ddls[pending]
            yield PlannedDDL(ddl.table, timeline.apply(ddl, *clock.next(0)), ddl)
            pending += 1
            picker.refresh()
        if emitted >= total:
            return
        if not picker.any_live():
            raise ScenarioError("no live table left to write rows to", file=scenario.source)
        table = picker.pick(rng)
        low, high = scenario.tables[table].txn_size
        size = min(low + below(rng, high - low + 1), total - emitted)  # rng.randint(low, high)
        commit_ts, start_ts = clock.next(size)
        yield PlannedTxn(table, size, commit_ts, start_ts)
        emitted += size


class _Picker:
    """Weighted choice among the live tables; rebuilt when a DDL creates or drops one."""

    def __init__(self, scenario: Scenario, timeline: SchemaTimeline) -> None:
        self._scenario = scenario
        self._timeline = timeline
        self._tables: list[int] = []
        self._cumulative: list[float] = []
        self.refresh()

    def refresh(self) -> None:
        self._tables = [i for i in range(len(self._scenario.tables)) if self._timeline.live(i)]
        running = 0.0
        self._cumulative = []
        for i in self._tables:
            running += self._scenario.tables[i].weight
            self._cumulative.append(running)

    def any_live(self) -> bool:
        return bool(self._tables)

    def pick(self, rng: random.Random) -> int:
        point = rng.random() * self._cumulative[-1]
        return self._tables[
            min(bisect.bisect_right(self._cumulative, point), len(self._tables) - 1)
        ]
