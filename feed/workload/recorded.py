"""A workload's schedule walked once and kept: what tables that plan ahead read from.

The schedule is cheap next to the rows, but not free (about a microsecond a transaction), and
a table whose rows are planned in bulk (``window``) needs all of its transactions before its
first. ``RecordedSchedule`` keeps the steps of one walk: transactions as arrays, the rarer
DDLs and resolved records by the transaction they come before. The Spark driver, which walks
the schedule to plan anyway, hands its recording to every task instead of each task walking
it again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from itertools import pairwise
from typing import NamedTuple

import numpy as np

from tisink.feed.workload.steps import PlannedDDL, PlannedResolved, PlannedTxn, Step
from tisink.feed.workload.window import TableTxns, WindowPlan
from tisink.model.events import DDLType

_CHUNK = 1 << 14
"""Transactions turned into Python values at a time."""
_RUN = 1 << 10
"""Transactions in a ``TxnRun`` at most: a table builds a run's rows at once."""


class TxnRun(NamedTuple):
    """Consecutive transactions of one table in a walk (a recorded schedule's), as lists."""

    table: int
    sizes: list[int]
    commits: list[int]
    starts: list[int]
    preloads: list[bool]
    local: list[int]
    """Each one's place among its table's own transactions."""

    def txns(self) -> Iterator[PlannedTxn]:
        """The run's transactions one by one."""
        table = self.table
        for size, commit, start, preload, local in zip(
            self.sizes, self.commits, self.starts, self.preloads, self.local, strict=True
        ):
            yield PlannedTxn(table, size, commit, start, preload, local)


def every_transaction(start: int, end: int) -> np.ndarray:
    """A walk's visit of every transaction from ``start`` to ``end`` (``sparse_runs``)."""
    return np.arange(start, end)


class RecordedSchedule:
    """The steps of one walk of a schedule, to walk again as often as wanted."""

    def __init__(self, steps: Iterable[Step]) -> None:
        tables: list[int] = []
        sizes: list[int] = []
        commits: list[int] = []
        starts: list[int] = []
        preloads: list[bool] = []
        self.others: list[tuple[int, PlannedDDL | PlannedResolved]] = []
        """(the index of the transaction the step comes before, the step)."""
        for step in steps:
            if type(step) is PlannedTxn:
                tables.append(step.table)
                sizes.append(step.size)
                commits.append(step.commit_ts)
                starts.append(step.start_ts)
                preloads.append(step.preload)
            else:
                self.others.append((len(tables), step))  # type: ignore[arg-type]
        self.tables = np.array(tables, dtype=np.int32)
        self.sizes = np.array(sizes, dtype=np.int64)
        self.commits = np.array(commits, dtype=np.int64)
        self.starts = np.array(starts, dtype=np.int64)
        self.preloads = np.array(preloads, dtype=np.bool_)
        order = np.argsort(self.tables, kind="stable")
        first = np.searchsorted(self.tables[order], self.tables[order], side="left")
        self.local = np.empty(len(tables), dtype=np.int64)
        """Each transaction's place among its table's own."""
        self.local[order] = np.arange(len(tables)) - first
        shared = np.zeros(len(tables), dtype=np.bool_)
        if len(tables) > 1:
            same = self.commits[1:] == self.commits[:-1]
            shared[1:] |= same
            shared[:-1] |= same
        self.shared = shared
        """The parts of multi-table transactions (one commitTs for several steps)."""
        self.windows: dict[int, WindowPlan] = {}
        """Tables' window plans, made once for every walk (``generator.plan_windows``: the
        Spark driver's, so that its tasks do not each plan the same tables)."""

    def sparse_runs(self, visit: Callable[[int, int], np.ndarray]) -> Iterator[Step | TxnRun]:
        """Every DDL and resolved step, and of the transactions between two of them (from
        ``start`` to ``end``) the ones ``visit(start, end)`` names (sorted positions), in runs
        of one table's: ``visit`` is asked once the steps before ``start`` went out."""
        bounds = [before for before, _ in self.others]
        k, position, count = 0, 0, len(self.tables)
        columns = (self.sizes, self.commits, self.starts, self.preloads, self.local)
        while position < count or k < len(self.others):
            while k < len(self.others) and bounds[k] <= position:
                yield self.others[k][1]
                k += 1
            end = bounds[k] if k < len(self.others) else count
            if position < end:
                chosen = visit(position, end)
                for base in range(0, len(chosen), _CHUNK):
                    picked = chosen[base : base + _CHUNK]
                    tables = self.tables[picked]
                    changes = np.flatnonzero(tables[1:] != tables[:-1]) + 1
                    cuts = np.union1d(changes, np.arange(0, len(picked) + 1, _RUN)).tolist()
                    if cuts[-1] != len(picked):
                        cuts.append(len(picked))
                    lists = [column[picked].tolist() for column in columns]
                    for low, high in pairwise(cuts):
                        run = [values[low:high] for values in lists]
                        yield TxnRun(int(tables[low]), *run)
            position = end

    def positions(self, table: int) -> np.ndarray:
        """The positions (in the walk's transactions) of table ``table``'s transactions."""
        return np.flatnonzero(self.tables == table)

    def table_txns(self, table: int) -> TableTxns:
        """The transactions of scenario table ``table``, with where TRUNCATEs reset it."""
        mine = np.flatnonzero(self.tables == table)
        resets = []
        for before, step in self.others:
            if type(step) is not PlannedDDL or step.table != table:
                continue
            if step.event.ddl_type is DDLType.TRUNCATE:
                resets.append(int(np.searchsorted(mine, before)))
        return TableTxns(self.sizes[mine], self.preloads[mine], tuple(resets))
