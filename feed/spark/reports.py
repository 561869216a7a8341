"""What each first-stage chunk reports, and the one check every owner runs before writing.

A chunk (a split of a feed file, or a workload task's tables) checks its own records with a
reader whose schemas start where the feed is at the chunk's start; what only the whole feed
can say (commit order across chunks, ``resolved`` promises) is checked from the reports. Each
chunk sends its report to every owner, ahead of its rows, so every owner finds the feed's first
problem itself and writes nothing when there is one; the driver learns it from their results.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tisink.feed.spark.plan import Key


@dataclass(frozen=True, slots=True)
class InputProblem:
    """The first bad record of a chunk: its place in the feed, and why."""

    place: int
    reason: str
    table: str | None = None
    column: str | None = None


@dataclass(frozen=True, slots=True)
class TableInterval:
    """One table's messages in one watermark interval, as one chunk of stage one saw them."""

    table_id: int
    interval: int
    count: int
    first: Key
    """(commitTs, seq) of the first message: where a first-row BOOTSTRAP goes."""
    first_ref: int
    """The plan DDL index of that message's table version."""
    last: Key
    last_ref: int


@dataclass(frozen=True, slots=True)
class ChunkReport:
    start: int
    """The place of the chunk's first line; reports are checked in this order."""
    first: tuple[int, int] | None
    """(place, ts) of the chunk's first record."""
    last_ts: int
    """The largest commitTs (or resolved ts) among its records."""
    last_resolved: int
    """Its largest ``resolved`` ts; -1 without one."""
    problem: InputProblem | None
    split_txns: tuple[tuple[int, int], ...] = ()
    """(tableID, commitTs) of transactions with an UPDATE split into DELETE + INSERT."""
    table_intervals: tuple[TableInterval, ...] = ()
    """Each table's messages per watermark interval, when the protocol sends BOOTSTRAPs
    (``feed/spark/bootstraps.py``)."""


def first_problem(reports: Iterable[ChunkReport]) -> InputProblem | None:
    """The problem at the earliest place: a chunk's own, or a chunk whose first record goes
    back in commit order or is not after an earlier chunk's ``resolved`` record (the rules of
    spec/feed-format.md, as the streaming reader applies them)."""
    found: InputProblem | None = None
    last_ts, resolved = 0, -1
    for report in sorted(reports, key=lambda r: r.start):
        if report.first is not None:
            place, ts = report.first
            if ts <= resolved:
                found = _earlier(found, InputProblem(place, _not_after(ts, resolved)))
            elif ts < last_ts:
                found = _earlier(found, InputProblem(place, _goes_back(ts, last_ts)))
        if report.problem is not None:
            found = _earlier(found, report.problem)
        last_ts = max(last_ts, report.last_ts)
        resolved = max(resolved, report.last_resolved)
    return found


def _earlier(found: InputProblem | None, other: InputProblem) -> InputProblem:
    return other if found is None or other.place < found.place else found


def _not_after(ts: int, resolved: int) -> str:
    return f"commitTs {ts} is not after resolved ts {resolved}"


def _goes_back(ts: int, previous: int) -> str:
    return f"commitTs {ts} goes back (previous {previous})"
