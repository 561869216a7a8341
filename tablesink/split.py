"""Splitting key-changing UPDATEs into DELETE + INSERT (TiCDC ``trySplitAndSortUpdateEvent``).

Consumers that key rows by their primary or unique key (the index-value dispatcher, Avro and CSV
consumers without old values) would lose the old key of an UPDATE that changes it, so TiCDC
turns such an UPDATE into a DELETE of the old row and an INSERT of the new one, then re-sorts
the transaction's rows so deletes come first (delete < update < insert). MySQL-compatible sinks
never split (spec 1.3): their provider says so (``sink.capabilities.UpdateSplitting``), and the
one ``SplitPolicy`` built from it serves the table sinks and the Spark first stage alike.

Go sorts with ``sort.Sort``, which is stable for up to 12 rows and unspecified beyond; we sort
stably, which is the same order wherever Go's is determined by the rule alone.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from tisink.model.events import RowChangedEvent


@dataclass(frozen=True, slots=True)
class SplitPolicy:
    """Whether key-changing UPDATEs of a changefeed become DELETE + INSERT."""

    enabled: bool = True

    @classmethod
    def of(cls, *, sink_splits: bool, output_raw_change_event: bool) -> SplitPolicy:
        """TiCDC's rule: split unless the sink takes UPDATEs whole or raw events are asked for."""
        return cls(sink_splits and not output_raw_change_event)

    def halves(self, row: RowChangedEvent) -> tuple[RowChangedEvent, RowChangedEvent] | None:
        """The DELETE and INSERT ``row`` becomes, or None when it stays whole."""
        if self.enabled and changes_unique_key(row):
            return split_update(row)
        return None


SPLIT_KEY_UPDATES = SplitPolicy()
"""TiCDC's default for every sink but the MySQL-compatible ones."""


def changes_unique_key(row: RowChangedEvent) -> bool:
    """True when an UPDATE changes the value of any column of a PK or NOT NULL unique key."""
    before, after = row.before, row.after
    if before is None or after is None:
        return False
    for key in row.table.unique_keys:
        for name in key:
            if before.get(name) != after.get(name):
                return True
    return False


def split_update(row: RowChangedEvent) -> tuple[RowChangedEvent, RowChangedEvent]:
    """The DELETE and INSERT halves of an UPDATE.

    Both halves keep the row's timestamps, ``split_txn``, size and table; the checksum's
    ``current`` is zeroed on the delete half and ``previous`` on the insert half (spec 1.6).
    """
    checksum = row.checksum
    delete = row.replace(
        after=None,
        checksum=None if checksum is None else dataclasses.replace(checksum, current=0),
    )
    insert = row.replace(
        before=None,
        checksum=None if checksum is None else dataclasses.replace(checksum, previous=0),
    )
    return delete, insert


def dml_order(row: RowChangedEvent) -> int:
    """delete < update < insert, TiCDC's ``getDMLOrder``."""
    if row.after is None:
        return 0
    if row.before is None:
        return 2
    return 1


def split_txn_rows(rows: list[RowChangedEvent]) -> list[RowChangedEvent]:
    """One transaction's rows with key-changing UPDATEs split and, if any was, re-sorted.

    Returns ``rows`` itself when nothing needed splitting, so the common case allocates nothing.
    """
    first = _first_split(rows)
    if first < 0:
        return rows
    out = rows[:first]
    for row in rows[first:]:
        if changes_unique_key(row):
            out.extend(split_update(row))
        else:
            out.append(row)
    out.sort(key=dml_order)
    return out


def split_row_stream(rows: list[RowChangedEvent]) -> list[RowChangedEvent]:
    """Like :func:`split_txn_rows` for a flush of single rows (row sinks).

    The re-sort stays inside each transaction, delimited as the TxnAppender would (a change of
    startTs or commitTs, or ``split_txn``), so rows never move across commit timestamps.
    """
    first = _first_split(rows)
    if first < 0:
        return rows
    start = first
    while start > 0 and not _starts_txn(rows[start - 1], rows[start]):
        start -= 1
    out = rows[:start]
    for end in range(start + 1, len(rows) + 1):
        if end == len(rows) or _starts_txn(rows[end - 1], rows[end]):
            out.extend(split_txn_rows(rows[start:end]))
            start = end
    return out


def _starts_txn(prev: RowChangedEvent, row: RowChangedEvent) -> bool:
    return row.split_txn or row.start_ts != prev.start_ts or row.commit_ts != prev.commit_ts


def _first_split(rows: Sequence[RowChangedEvent]) -> int:
    """Index of the first row that must be split, or -1."""
    for index, row in enumerate(rows):
        if row.before is not None and row.after is not None and changes_unique_key(row):
            return index
    return -1
