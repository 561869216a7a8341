"""How a partition's share of rows divides into transactions and DML entries.

A share is normally one transaction of one table and one DML type: ``one_run`` tells, so the
encoder takes its one-Envelope path. Otherwise every (commit ts, start ts) is a transaction of
its own, and within it each run of consecutive rows of one table and one DML type one DML entry.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from tisink.codec.dts.tencent.enums import DMLType
from tisink.model.events import RowChangedEvent
from tisink.model.table import TableInfo

INSERT, UPDATE, DELETE = DMLType.INSERT, DMLType.UPDATE, DMLType.DELETE

Run = tuple[TableInfo, DMLType, int, int]
"""A DML entry's table, type and rows (``start``, ``end``)."""


def dml_type(row: RowChangedEvent) -> DMLType:
    if row.before is None:
        return INSERT
    return DELETE if row.after is None else UPDATE


def one_run(rows: Sequence[RowChangedEvent], first: RowChangedEvent, kind: DMLType) -> bool:
    """True when ``rows`` are one transaction's rows of one table and one DML type."""
    commit_ts, start_ts, table = first.commit_ts, first.start_ts, first.table
    for row in rows:
        if (
            row.commit_ts != commit_ts
            or row.start_ts != start_ts
            or row.table is not table
            or dml_type(row) is not kind
        ):
            return False
    return True


def transactions(rows: Sequence[RowChangedEvent]) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each run of rows with one (commit ts, start ts)."""
    start, count = 0, len(rows)
    while start < count:
        first = rows[start]
        end = start + 1
        while end < count and (
            rows[end].commit_ts == first.commit_ts and rows[end].start_ts == first.start_ts
        ):
            end += 1
        yield start, end
        start = end


def runs(rows: Sequence[RowChangedEvent], start: int, end: int) -> list[Run]:
    """The DML entries of the transaction ``rows[start:end]``."""
    out: list[Run] = []
    run_start, table, kind = start, rows[start].table, dml_type(rows[start])
    for index in range(start + 1, end):
        row = rows[index]
        row_kind = dml_type(row)
        if row.table is not table or row_kind is not kind:
            out.append((table, kind, run_start, index))
            run_start, table, kind = index, row.table, row_kind
    out.append((table, kind, run_start, end))
    return out
