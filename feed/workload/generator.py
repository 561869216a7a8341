"""Public entry points of the workload generator: whole feeds, subsets of tables, selections.

``generate_records`` walks the schedule (recorded once: ``record_schedule``) and lets every
table commit its transactions; ``generate_table_records`` does the same for a subset of
tables, and subsets merged by commitTs (``merge_partitions``) are the whole feed, byte for
byte. ``generate_selected_records`` builds only the rows a ``RowSelection`` keeps (a Spark
task's share; with ``sparse``, walking only the transactions that touch them). A selectable
table is a ``WindowTable`` (its rows planned in bulk), any other a ``TableState``. Records that
belong to no table (database DDLs, resolved records) go with the subset that holds the
scenario's first table.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import cast

import numpy as np
import orjson

from tisink.feed.format.checksums import with_checksums
from tisink.feed.format.records import FeedDDL, FeedRecord, FeedResolved, FeedRow
from tisink.feed.format.writer import ddl_record, row_record
from tisink.feed.workload.errors import ScenarioError
from tisink.feed.workload.loader import load_scenario
from tisink.feed.workload.recorded import RecordedSchedule, TxnRun, every_transaction
from tisink.feed.workload.schedule import NO_TABLE, PlannedDDL, PlannedResolved, plan
from tisink.feed.workload.selection import RowSelection, SkippedRow, selectable
from tisink.feed.workload.specs import Scenario
from tisink.feed.workload.table_state import TableState, scenario_modifies
from tisink.feed.workload.window_table import WindowTable, table_window

log = logging.getLogger(__name__)


def _scenario(scenario: Scenario | str | os.PathLike[str]) -> Scenario:
    return scenario if isinstance(scenario, Scenario) else load_scenario(scenario)


def generate_records(
    scenario: Scenario | str | os.PathLike[str],
    seed: int,
    rows: int | None = None,
    schedule: RecordedSchedule | None = None,
) -> Iterator[FeedRecord]:
    """Every record of the workload in commit order (``rows`` overrides the scenario's;
    ``schedule``: its schedule already walked, ``record_schedule``)."""
    spec = _scenario(scenario)
    # without a selection no SkippedRow is made
    everything = _generate(spec, seed, rows, range(len(spec.tables)), schedule=schedule)
    return cast(Iterator[FeedRecord], everything)


def generate_selected_records(
    scenario: Scenario | str | os.PathLike[str],
    seed: int,
    rows: int | None,
    select: RowSelection,
    schedule: RecordedSchedule | None = None,
    sparse: bool = False,
) -> Iterator[FeedRecord | SkippedRow]:
    """Every record of the workload in commit order, except that the rows of ``selectable``
    tables that ``select`` does not keep come as ``SkippedRow`` markers (not built).
    ``schedule``: the workload's schedule already walked (``record_schedule``). ``sparse``:
    leave out the markers of transactions with no kept row, unless they share their
    commitTs with another table's (so a consumer still numbers the rows of a commitTs), and
    never step through those transactions: the work follows the kept rows."""
    spec = _scenario(scenario)
    return _generate(spec, seed, rows, range(len(spec.tables)), select, schedule, sparse)


def record_schedule(scenario: Scenario, seed: int, rows: int | None) -> RecordedSchedule:
    """The workload's schedule walked once, for ``generate_selected_records``. A ``rows``
    the schedule cannot hold is refused here (ScenarioError)."""
    return RecordedSchedule(plan(scenario, seed, rows))


def plan_windows(scenario: Scenario, seed: int, schedule: RecordedSchedule) -> None:
    """Plan every ``selectable`` table's rows once, into ``schedule``: every walk of it then
    takes the plans instead of making them (a Spark play's driver, so that each of its tasks
    does not plan every table again: 0.2 to 1.5 CPU-s per task at 2M rows)."""
    for i, spec in enumerate(scenario.tables):
        if selectable(scenario, i) and i not in schedule.windows:
            schedule.windows[i] = table_window(spec, seed, schedule.table_txns(i))


def generate_table_records(
    scenario: Scenario | str | os.PathLike[str],
    seed: int,
    rows: int | None,
    table_names: Iterable[str],
) -> Iterator[FeedRecord]:
    """The records of the named tables only (names as in the scenario's ``[[tables]]``:
    ``table`` or ``schema.table``, also after a RENAME), in commit order."""
    spec = _scenario(scenario)
    wanted = sorted({spec.table_index(name) for name in table_names})
    return cast(Iterator[FeedRecord], _generate(spec, seed, rows, wanted))  # no selection


def _generate(
    scenario: Scenario,
    seed: int,
    rows: int | None,
    tables: Iterable[int],
    select: RowSelection | None = None,
    schedule: RecordedSchedule | None = None,
    sparse: bool = False,
) -> Iterator[FeedRecord | SkippedRow]:
    if schedule is None:
        schedule = record_schedule(scenario, seed, rows)
    states: dict[int, TableState] = {}
    for i in tables:
        spec, modifies = scenario.tables[i], scenario_modifies(scenario, i)
        if selectable(scenario, i):
            txns, positions = schedule.table_txns(i), schedule.positions(i)
            plan = schedule.windows.get(i)
            states[i] = WindowTable(spec, seed, txns, select, modifies, positions, plan)
        else:
            states[i] = TableState(spec, seed, modifies)
    tableless = 0 in states
    visit = _Visits(schedule, states) if sparse else every_transaction
    for step in schedule.sparse_runs(visit):
        state = states.get(step.table)
        if type(step) is TxnRun:
            if type(state) is WindowTable:
                yield from state.commit_run(step.sizes, step.commits, step.starts, step.local)
            elif state is not None:
                for txn in step.txns():
                    yield from state.commit(txn)
            continue
        if state is None:
            if step.table == NO_TABLE and tableless:
                if type(step) is PlannedResolved:
                    yield FeedResolved(step.commit_ts)
                else:
                    event = step.event  # type: ignore[union-attr]
                    yield FeedDDL(event.commit_ts, event.start_ts, event)
            continue
        assert type(step) is PlannedDDL, "a resolved step belongs to no table"
        yield state.apply_ddl(step)


class _Visits:
    """The transactions a sparse walk goes through between two DDLs: every one of a table
    built whole, the parts of multi-table transactions, and the ones touching a kept row."""

    def __init__(self, schedule: RecordedSchedule, states: dict[int, TableState]) -> None:
        self._schedule = schedule
        self._states = states
        whole = [i for i, s in states.items() if not isinstance(s, WindowTable)]
        always = schedule.shared | np.isin(schedule.tables, whole)
        self._always = np.flatnonzero(always)
        self._positions = {i: schedule.positions(i) for i in states}

    def __call__(self, start: int, end: int) -> np.ndarray:
        low, high = np.searchsorted(self._always, (start, end))
        parts = [self._always[low:high]]
        for i, state in self._states.items():
            if isinstance(state, WindowTable) and state.info is not None:
                state.prepare(int(np.searchsorted(self._positions[i], start)))
                parts.append(state.kept_between(start, end))
        return np.unique(np.concatenate(parts))


def merge_partitions(partitions: Iterable[Iterable[FeedRecord]]) -> Iterator[FeedRecord]:
    """One commit-ordered stream from per-table partitions. A commitTs belongs to one table,
    or to one transaction whose tables come in tableID order; a resolved record follows the
    rows of its ts. So ordering by (commitTs, tableID) restores the whole feed."""
    return heapq.merge(*partitions, key=_order)


def _order(record: FeedRecord) -> tuple[int, int]:
    if type(record) is FeedRow:
        return record.row.commit_ts, record.row.table.table_id
    if type(record) is FeedDDL:
        return record.commit_ts, 0
    if type(record) is FeedResolved:
        return record.ts, 1 << 62
    raise ScenarioError(f"the generator does not produce {type(record).__name__} records")


def record_line(record: FeedRecord) -> bytes:
    """The feed file line of a generated record (as FeedWriter writes it), newline included."""
    if type(record) is FeedRow:
        return orjson.dumps(row_record(record.row), option=orjson.OPT_APPEND_NEWLINE)
    if type(record) is FeedDDL:
        return orjson.dumps(ddl_record(record.ddl), option=orjson.OPT_APPEND_NEWLINE)
    if type(record) is FeedResolved:
        return b'{"type":"resolved","ts":%d}\n' % record.ts
    raise ScenarioError(f"the generator does not produce {type(record).__name__} records")


def generate_feed(
    scenario: Scenario | str | os.PathLike[str],
    seed: int,
    rows: int | None,
    out_path: str | os.PathLike[str],
    *,
    checksum_version: int | None = None,
    corrupt_nth: int = 0,
) -> dict[str, int]:
    """Write the workload to the feed file ``out_path`` (for ``tisink generate``); returns
    counts: ``rows``, ``ddl``, ``bytes``, ``tables``. With ``checksum_version`` (0, 1, 2)
    every row carries TiCDC's row checksum of that version, every ``corrupt_nth``-th one
    marked corrupted (``feed.format.checksums.with_checksums``)."""
    spec = _scenario(scenario)
    counts = {"rows": 0, "ddl": 0, "bytes": 0, "tables": len(spec.tables)}
    path = Path(out_path)
    generated: Iterable[FeedRecord] = generate_records(spec, seed, rows)
    if checksum_version is not None:
        generated = with_checksums(generated, checksum_version, corrupt_nth)
    records = iter(generated)
    first = next(records, None)  # the workload's checks run here: a refusal leaves no file
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer: list[bytes] = []
    with path.open("wb") as out:
        for record in itertools.chain(() if first is None else (first,), records):
            line = record_line(record)
            kind = "rows" if type(record) is FeedRow else "ddl" if type(record) is FeedDDL else ""
            kind = kind or "resolved"
            counts[kind] = counts.get(kind, 0) + 1
            counts["bytes"] += len(line)
            buffer.append(line)
            if len(buffer) >= 4096:
                out.write(b"".join(buffer))
                buffer.clear()
        out.write(b"".join(buffer))
    log.info("generated %s: %s", path, counts)
    return counts
