"""The global schedule of a workload: which table commits how many rows at which TSO.

The schedule draws from its own RNG (seeded from the seed alone) and never from a table's, so
every process that generates some of the tables walks the same schedule and assigns the same
commit timestamps: a feed generated in partitions merges into the feed generated in one go.
Each transaction and each DDL gets its own commitTs; physical time advances by
``rows / rate`` seconds per transaction (or as the scenario's rate profile says). A
transaction of ``[[transactions]]`` is one PlannedTxn per table, all with its commitTs, in
tableID order; storms, preloads and resolved records draw from RNGs of their own, so a
scenario without them walks exactly the schedule it always did.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Iterator

from tisink.feed.workload.draws import below
from tisink.feed.workload.errors import ScenarioError
from tisink.feed.workload.specs import Scenario, TxnSpec
from tisink.feed.workload.steps import (
    NO_TABLE,
    PRELOAD_TXN_ROWS,
    START_LAG_MS,
    PlannedDDL,
    PlannedResolved,
    PlannedTxn,
    Step,
    TsoClock,
    derive_seed,
    with_resolved,
)
from tisink.feed.workload.storm_ddls import StormSteps
from tisink.feed.workload.timeline import SchemaTimeline

__all__ = [
    "NO_TABLE",
    "PRELOAD_TXN_ROWS",
    "START_LAG_MS",
    "PlannedDDL",
    "PlannedResolved",
    "PlannedTxn",
    "Step",
    "TsoClock",
    "derive_seed",
    "plan",
]


def plan(scenario: Scenario, seed: int, rows: int | None = None) -> Iterator[Step]:
    """The schedule of ``scenario``: CREATEs of the initial tables, their preloads, then
    transactions with the DDLs placed at their fraction of the ``rows`` row changes (preloads
    not counted), storm DDLs and resolved records at their commit-time cadences. A ``rows``
    the schedule cannot hold (``Scenario.size_problem``) is refused before the first step."""
    scenario.check_size(scenario.rows if rows is None else rows)
    steps = _plan(scenario, seed, rows)
    if not scenario.resolved_every_ms:
        return steps
    return with_resolved(steps, scenario.resolved_every_ms, scenario.start_ms)


def _plan(scenario: Scenario, seed: int, rows: int | None) -> Iterator[Step]:
    total = scenario.rows if rows is None else rows
    rng = random.Random(derive_seed(seed, "schedule"))
    clock = TsoClock(scenario.start_ms, scenario.rate, scenario.source, scenario.profile)
    timeline = SchemaTimeline(scenario)
    for table, spec in enumerate(scenario.tables):
        if not spec.deferred:
            yield PlannedDDL(table, timeline.create(table, *clock.next(0)), None)
    for table, spec in enumerate(scenario.tables):
        for done in range(0, 0 if spec.deferred else spec.preload, PRELOAD_TXN_ROWS):
            size = min(PRELOAD_TXN_ROWS, spec.preload - done)
            yield PlannedTxn(table, size, *clock.next(size), preload=True)
    ddls = sorted(scenario.ddls, key=lambda d: d.at)
    thresholds = [round(d.at * total) for d in ddls]
    pending = 0
    emitted = 0
    picker = _Picker(scenario, timeline)
    storm = None if scenario.storm is None else StormSteps(scenario, seed, timeline, clock)
    while True:
        while pending < len(ddls) and (thresholds[pending] <= emitted or not picker.any_live()):
            ddl = ddls[pending]
            yield PlannedDDL(ddl.table, timeline.apply(ddl, *clock.next(0)), ddl)
            pending += 1
            picker.refresh()
        if emitted >= total:
            return
        if storm is not None:
            yield from storm.due()
        if not picker.any_live():
            raise ScenarioError("no live table left to write rows to", file=scenario.source)
        table = picker.pick(rng)
        if table < 0:
            txn = _multi_table(scenario.transactions[-table - 1], rng, timeline, clock)
            yield from txn
            emitted += sum(part.size for part in txn)
            continue
        low, high = scenario.tables[table].txn_size
        size = min(low + below(rng, high - low + 1), total - emitted)  # rng.randint(low, high)
        commit_ts, start_ts = clock.next(size)
        yield PlannedTxn(table, size, commit_ts, start_ts)
        emitted += size


def _multi_table(
    txn: TxnSpec, rng: random.Random, timeline: SchemaTimeline, clock: TsoClock
) -> list[PlannedTxn]:
    """One transaction over the tables of ``txn`` (never cut short: a transfer is whole),
    each part's table picked among its live candidates, parts in tableID order."""
    picked = []
    for part in txn.parts:
        live = [(t, w) for t, w in zip(part.tables, part.cumulative, strict=True)]
        live = [(t, w) for t, w in live if timeline.live(t)]
        point = rng.random() * live[-1][1]
        table = next((t for t, w in live if point < w), live[-1][0])
        low, high = part.rows
        picked.append((table, low + below(rng, high - low + 1)))
    commit_ts, start_ts = clock.next(sum(size for _, size in picked))
    picked.sort(key=lambda pick: _table_id(timeline, pick[0]))
    return [PlannedTxn(table, size, commit_ts, start_ts) for table, size in picked]


def _table_id(timeline: SchemaTimeline, table: int) -> int:
    info = timeline.current[table]
    assert info is not None
    return info.table_id


class _Picker:
    """Weighted choice among the live tables; rebuilt when a DDL creates or drops one."""

    def __init__(self, scenario: Scenario, timeline: SchemaTimeline) -> None:
        self._scenario = scenario
        self._timeline = timeline
        self._tables: list[int] = []
        self._cumulative: list[float] = []
        self.refresh()

    def refresh(self) -> None:
        """Live tables, then the ``[[transactions]]`` (as -1, -2, ...) whose every part has a
        live table."""
        live = self._timeline.live
        self._tables = [i for i in range(len(self._scenario.tables)) if live(i)]
        weights = [self._scenario.tables[i].weight for i in self._tables]
        for g, txn in enumerate(self._scenario.transactions):
            if all(any(live(t) for t in part.tables) for part in txn.parts):
                self._tables.append(-g - 1)
                weights.append(txn.weight)
        running = 0.0
        self._cumulative = []
        for weight in weights:
            running += weight
            self._cumulative.append(running)

    def any_live(self) -> bool:
        return bool(self._tables) and self._cumulative[-1] > 0

    def pick(self, rng: random.Random) -> int:
        point = rng.random() * self._cumulative[-1]
        return self._tables[
            min(bisect.bisect_right(self._cumulative, point), len(self._tables) - 1)
        ]
