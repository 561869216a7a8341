"""Splitting key-changing UPDATEs into DELETE + INSERT (TiCDC ``trySplitAndSortUpdateEvent``).

Consumers that key rows by their primary or unique key (the index-value dispatcher, Avro and CSV
consumers without old values) would lose the old key of an UPDATE that changes it, so TiCDC
turns such an UPDATE into a DELETE of the old row and an INSERT of the new one. An UPDATE is
split when a column of the primary key or of any unique index changes, nullable unique indexes
included (tiflow ``ShouldSplitUpdateEvent`` over the unique/handle-key column flags, whose own
test splits a nullable unique key; ticdc ``event.IsUKChanged`` over ``GetIndexColumns``, the
primary and every unique index). ``output-raw-change-event`` leaves UPDATEs whole (tiflow #11211).

The two architectures differ (``newarch``, the changefeed's switch):

* classic (pingcap/tiflow, ``SingleTableTxn.TrySplitAndSortUpdateEvent``): only the Kafka,
  Pulsar and storage sinks split, MySQL-compatible sinks never (spec 1.3); a transaction with a
  split row is re-sorted so deletes come first (delete < update < insert). Go sorts with
  ``sort.Sort``, stable for up to 12 rows and unspecified beyond; we sort stably, the same
  order wherever Go's is determined by the rule alone.
* new (pingcap/ticdc, ``dmlProcessor.appendRow`` in the event service): every sink gets split
  UPDATEs, MySQL-compatible ones too, and only the Kafka and storage sinks read
  ``output-raw-change-event``; the DELETE stays where the UPDATE was and the INSERTs are
  appended at the end of the transaction in their order, nothing is re-sorted.

Neither splits an UPDATE because it changes the index-value or columns dispatcher's partition
key while ``output-raw-change-event`` is on: tiflow #11297 proposes it and is still open (no
code in tiflow c7b2588 or ticdc b813e76), so tisink does not either.

The one ``SplitPolicy`` built by the sink factory serves the table sinks and the Spark first
stage alike.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from tisink.model.events import Image, RowChangedEvent
from tisink.model.table import TableInfo


@dataclass(frozen=True, slots=True)
class SplitPolicy:
    """Whether key-changing UPDATEs of a changefeed become DELETE + INSERT, and in which
    architecture's order (``newarch``)."""

    enabled: bool = True
    newarch: bool = True

    @classmethod
    def of(
        cls, *, sink_splits: bool, output_raw_change_event: bool, newarch: bool = True
    ) -> SplitPolicy:
        """TiCDC's rule. Classic: split unless the sink takes UPDATEs whole (MySQL-compatible)
        or raw events are asked for. New: split for every sink; the ones that take UPDATEs
        whole do not read ``output-raw-change-event``, the others do."""
        if newarch:
            return cls(not (output_raw_change_event and sink_splits), True)
        return cls(sink_splits and not output_raw_change_event, False)

    def split_txn_rows(self, rows: list[RowChangedEvent]) -> list[RowChangedEvent]:
        """:func:`split_txn_rows` in this policy's architecture."""
        return split_txn_rows(rows, newarch=self.newarch)

    def split_row_stream(self, rows: list[RowChangedEvent]) -> list[RowChangedEvent]:
        """:func:`split_row_stream` in this policy's architecture."""
        return split_row_stream(rows, newarch=self.newarch)

    def halves(self, row: RowChangedEvent) -> tuple[RowChangedEvent, RowChangedEvent] | None:
        """The DELETE and INSERT ``row`` becomes, or None when it stays whole."""
        if self.enabled and changes_unique_key(row):
            return split_update(row)
        return None


SPLIT_KEY_UPDATES = SplitPolicy()
"""TiCDC's default for every sink but the MySQL-compatible ones."""


def changes_unique_key(row: RowChangedEvent) -> bool:
    """True when an UPDATE changes the value of any column of the primary key or of a unique
    index, nullable or not (both TiCDC architectures)."""
    before, after = row.before, row.after
    if before is None or after is None:
        return False
    return key_changes(row.table, before, after)


def key_changes(table: TableInfo, before: Image, after: Image) -> bool:
    """``changes_unique_key`` of an UPDATE of ``table`` from ``before`` to ``after``."""
    for index in table.indexes:
        if index.primary or index.unique:
            for name in index.columns:
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


def split_txn_rows(rows: list[RowChangedEvent], *, newarch: bool = False) -> list[RowChangedEvent]:
    """One transaction's rows with key-changing UPDATEs split: classic, re-sorted if any was
    (delete < update < insert); ``newarch``, each DELETE in its UPDATE's place and the INSERTs
    appended at the end in order.

    Returns ``rows`` itself when nothing needed splitting, so the common case allocates nothing.
    """
    first = _first_split(rows)
    if first < 0:
        return rows
    out = rows[:first]
    inserts: list[RowChangedEvent] = []
    for row in rows[first:]:
        if changes_unique_key(row):
            delete, insert = split_update(row)
            if newarch:
                out.append(delete)
                inserts.append(insert)
            else:
                out += (delete, insert)
        else:
            out.append(row)
    if newarch:
        out += inserts
    else:
        out.sort(key=dml_order)
    return out


def split_row_stream(
    rows: list[RowChangedEvent], *, newarch: bool = False
) -> list[RowChangedEvent]:
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
            out.extend(split_txn_rows(rows[start:end], newarch=newarch))
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
