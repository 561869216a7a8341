"""The BOOTSTRAP cadence of a generated workload, worked out from its schedule alone.

A task that walks only the transactions touching its own rows (``generate_selected_records``
with ``sparse``) never sees the others' messages, so it cannot run the cadence as they stream
(``streamed_bootstraps``). It does not need to when every table is ``selectable``: such a
table's UPDATEs keep their keys, so each row is one message, and the recorded schedule says
how many rows each table commits at which commitTs. That gives the per-interval counts stage
one would have made (``TableInterval``), and ``planned_bootstraps`` turns them into the sends,
as for a feed.
"""

from __future__ import annotations

import numpy as np

from tisink.feed.play_records import BootstrapAt
from tisink.feed.spark.bootstraps import owners_bootstraps
from tisink.feed.spark.plan import FIRST_PLACE, RECORD_SUB, Key, PlayPlan
from tisink.feed.spark.reports import TableInterval
from tisink.feed.workload.recorded import RecordedSchedule
from tisink.feed.workload.steps import PlannedDDL
from tisink.model.tso import LOGICAL_BITS


def schedule_intervals(schedule: RecordedSchedule, plan: PlayPlan) -> list[TableInterval]:
    """Each table's messages per watermark interval (every row one message)."""
    count = len(schedule.tables)
    if not count:
        return []
    refs = np.zeros(count, dtype=np.int64)
    ddl_at: dict[int, tuple[list[int], list[int]]] = {}
    ref = 0
    for before, step in schedule.others:
        if type(step) is PlannedDDL:
            positions, indices = ddl_at.setdefault(step.table, ([], []))
            positions.append(before)
            indices.append(ref)
            ref += 1
    for table, (positions, indices) in ddl_at.items():
        mine = schedule.positions(table)
        if mine.size:
            last = np.searchsorted(np.array(positions), mine, side="right") - 1
            refs[mine] = np.array(indices)[last]
    table_ids = np.array(plan.table_ids, dtype=np.int64)[refs]
    sizes, commits = schedule.sizes, schedule.commits
    new_ts = np.ones(count, dtype=bool)
    new_ts[1:] = commits[1:] != commits[:-1]
    ends = np.cumsum(sizes)
    group_start = np.maximum.accumulate(np.where(new_ts, ends - sizes, 0))
    places = FIRST_PLACE + ends - sizes - group_start
    intervals = (commits >> LOGICAL_BITS) // plan.interval_ms
    order = np.lexsort((np.arange(count), intervals, table_ids))
    keys = np.stack((table_ids[order], intervals[order]), axis=1)
    starts = np.flatnonzero(np.r_[True, (keys[1:] != keys[:-1]).any(axis=1)])
    last = np.r_[starts[1:], count] - 1
    totals = np.add.reduceat(sizes[order], starts)
    out = []
    for g, (a, b) in enumerate(zip(starts.tolist(), last.tolist(), strict=True)):
        first_txn, last_txn = int(order[a]), int(order[b])
        first: Key = (int(commits[first_txn]), _seq(int(places[first_txn])))
        end = int(places[last_txn] + sizes[last_txn] - 1)
        out.append(
            TableInterval(
                int(table_ids[first_txn]),
                int(intervals[first_txn]),
                int(totals[g]),
                first,
                int(refs[first_txn]),
                (int(commits[last_txn]), _seq(end)),
                int(refs[last_txn]),
            )
        )
    return out


def _seq(place: int) -> int:
    return place << 2 | RECORD_SUB


def owner_sends(
    plan: PlayPlan, schedule: RecordedSchedule, owners: list[int]
) -> list[tuple[Key, BootstrapAt]]:
    """The planned BOOTSTRAPs of ``owners``' partitions, from the schedule."""
    return owners_bootstraps(plan, owners, schedule_intervals(schedule, plan))
