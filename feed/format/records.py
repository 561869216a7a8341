"""The typed records of a change feed file (spec/feed-format.md, "Records").

A row of a partitioned table (``TableInfo.partition``) is placed when its record is made: its
``physical_table_id`` becomes the id of the partition its image routes to, as TiCDC sends it
(the feed's ``tableID`` stays the logical table's, as DDLs carry it). TiDB writes an UPDATE
that moves a row to another partition as a DELETE in the old one and an INSERT in the new one
(pingcap/tidb pkg/table/tables/partition.go, ``partitionedTable.UpdateRecord``), so TiCDC
never sees such an UPDATE: a feed holds the two rows (``split_moved``) and refuses the UPDATE.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import orjson

from tisink.feed.errors import FeedError
from tisink.model.errors import SchemaError
from tisink.model.events import DDLEvent, RowChangedEvent


class Source(NamedTuple):
    """Where a record came from, kept so later errors can still point at the line. A tuple:
    the reader makes one per line, and ``tuple.__new__(Source, (file, line))`` costs little."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(slots=True)
class FeedDDL:
    """A ``ddl`` record: ``ddl.table`` is the schema after it, ``ddl.pre_table`` before."""

    commit_ts: int
    start_ts: int
    ddl: DDLEvent
    source: Source | None = None


@dataclass(slots=True)
class FeedRow:
    """A ``row`` record; ``row.table`` is the table's schema at that point of the feed."""

    row: RowChangedEvent
    source: Source | None = None

    def __post_init__(self) -> None:
        if self.row.table.partition is not None:
            place(self.row)


@dataclass(slots=True)
class FeedResolved:
    """A ``resolved`` record: no later record has commitTs <= ``ts``."""

    ts: int
    source: Source | None = None


FeedRecord = FeedDDL | FeedRow | FeedResolved


def place(row: RowChangedEvent) -> None:
    """Set the physical table id of a partitioned table's row from its image; FeedError when
    no partition holds it or when an UPDATE would move it to another partition."""
    table = row.table
    try:
        if row.after is None:
            row.physical_table_id = table.physical_id(row.before)  # type: ignore[arg-type]
            return
        row.physical_table_id = table.physical_id(row.after)
        if row.before is not None and table.physical_id(row.before) != row.physical_table_id:
            raise FeedError(
                "an UPDATE moves the row to another partition: TiDB writes it as a DELETE and "
                "an INSERT (and TiCDC sends those), so the feed must hold the two rows",
                table=table.qualified_name,
            )
    except SchemaError as err:
        raise FeedError(str(err), table=table.qualified_name) from None


def split_moved(row: RowChangedEvent, envelope: int) -> list[RowChangedEvent]:
    """``row``, or for an UPDATE of a partitioned table that moves the row to another
    partition, the DELETE of its old image and the INSERT of its new one (as TiDB writes
    them); ``envelope`` is the bytes of a row record without its images, for their sizes."""
    table, before, after = row.table, row.before, row.after
    if table.partition is None or before is None or after is None:
        return [row]
    if table.locate(before) == table.locate(after):
        return [row]
    delete = RowChangedEvent(row.start_ts, row.commit_ts, table, before, None)
    delete.approximate_size = envelope + _BEFORE + len(orjson.dumps(before))
    insert = RowChangedEvent(row.start_ts, row.commit_ts, table, None, after)
    insert.approximate_size = envelope + _AFTER + len(orjson.dumps(after))
    return [delete, insert]


_AFTER = len(b',"after":')
_BEFORE = len(b',"before":')
