"""Partition dispatchers of ``[[sink.dispatchers]] partition = ...`` (TiCDC
``eventrouter/partition``).

A dispatcher is bound once per table schema version into a ``RowPartitioner``: the column
lookups, the hashed column names and the value converters are resolved then, so the per-row
work is a few CRCs. Hashing follows ticdc: the table's ``schema`` and ``table`` first, then
``name || value`` per column, NULL columns skipped, values from the new image or, for a
DELETE, the old one.
"""

from __future__ import annotations

import datetime
import logging
import zlib
from collections.abc import Callable, Sequence

from tisink.eventsink.router.errors import DispatchError
from tisink.eventsink.router.hash import crc32_of
from tisink.eventsink.router.values import value_bytes_for
from tisink.model.events import RowChangedEvent
from tisink.model.table import ColumnInfo, TableInfo

log = logging.getLogger(__name__)

RowPartitioner = Callable[[RowChangedEvent, int], int]


def _table_crc(table: TableInfo) -> int:
    return crc32_of(table.schema.encode(), table.table.encode())


class TableDispatcher:
    """``default`` and ``table``: every row of a table goes to one partition."""

    __slots__ = ()

    def bind(self, table: TableInfo) -> RowPartitioner:
        crc = _table_crc(table)
        return lambda row, partition_num: crc % partition_num

    def image_columns(self, table: TableInfo) -> tuple[str, ...] | None:
        """The row image's columns the partition depends on: none."""
        return ()


def _by_commit_ts(row: RowChangedEvent, partition_num: int) -> int:
    return row.commit_ts % partition_num


class TsDispatcher:
    """``ts``: spread rows by commit timestamp."""

    __slots__ = ()

    def bind(self, table: TableInfo) -> RowPartitioner:
        return _by_commit_ts

    def image_columns(self, table: TableInfo) -> tuple[str, ...] | None:
        """None: the partition depends on the commit timestamp, not on the image."""
        return None


def _hash_columns(
    table: TableInfo, columns: Sequence[ColumnInfo], zone: datetime.tzinfo
) -> RowPartitioner:
    base = _table_crc(table)
    plan = tuple(
        (col.name, zlib.crc32(col.name.encode()), value_bytes_for(table, col, zone))
        for col in columns
    )

    if len(plan) == 1:
        [(name, name_crc, value_bytes)] = plan
        crc32 = zlib.crc32

        def one_column(row: RowChangedEvent, partition_num: int) -> int:
            """The usual single-column key, without the loop."""
            image = row.after if row.after is not None else row.before
            value = image.get(name) if image else None
            if value is None:
                return base % partition_num
            return (base ^ crc32(value_bytes(value), name_crc)) % partition_num

        return one_column

    def partition(row: RowChangedEvent, partition_num: int) -> int:
        image = row.after if row.after is not None else row.before
        crc = base
        if image:
            for name, name_crc, value_bytes in plan:
                value = image.get(name)
                if value is not None:
                    crc ^= zlib.crc32(value_bytes(value), name_crc)
        return crc % partition_num

    return partition


class IndexValueDispatcher:
    """``index-value`` (alias ``rowid``): hash the handle key, or the named unique index."""

    __slots__ = ("index_name", "zone")

    def __init__(self, index_name: str = "", zone: datetime.tzinfo = datetime.UTC) -> None:
        self.index_name = index_name
        self.zone = zone

    def bind(self, table: TableInfo) -> RowPartitioner:
        if not self.index_name:
            handle = set(table.handle_key)
            return _hash_columns(table, [c for c in table.columns if c.name in handle], self.zone)
        wanted = self.index_name.lower()
        index = next((i for i in table.indexes if i.name.lower() == wanted), None)
        if index is None:
            raise DispatchError(
                f"table {table.qualified_name}: index {self.index_name!r} of the index-value "
                "dispatcher not found"
            )
        if not (index.unique or index.primary):
            raise DispatchError(
                f"table {table.qualified_name}: index {index.name!r} of the index-value "
                "dispatcher is not unique"
            )
        by_name = table.column_by_name
        return _hash_columns(table, [by_name[name] for name in index.columns], self.zone)

    def image_columns(self, table: TableInfo) -> tuple[str, ...] | None:
        """The hashed columns: the handle key's, or the named index's (None if it is not one
        of the table's)."""
        if not self.index_name:
            return tuple(table.handle_key)
        wanted = self.index_name.lower()
        index = next((i for i in table.indexes if i.name.lower() == wanted), None)
        return None if index is None else tuple(index.columns)


class ColumnsDispatcher:
    """``columns``: hash the listed columns, matched case-insensitively, by their real names."""

    __slots__ = ("columns", "zone")

    def __init__(self, columns: Sequence[str], zone: datetime.tzinfo = datetime.UTC) -> None:
        self.columns = tuple(columns)
        self.zone = zone

    def bind(self, table: TableInfo) -> RowPartitioner:
        by_lower = {c.name.lower(): c for c in table.columns}
        chosen = []
        for name in self.columns:
            col = by_lower.get(name.lower())
            if col is None:
                raise DispatchError(
                    f"table {table.qualified_name}: column {name!r} of the columns "
                    f"dispatcher not found (columns {list(self.columns)})"
                )
            if col.virtual:
                raise DispatchError(
                    f"table {table.qualified_name}: column {col.name!r} of the columns "
                    "dispatcher is a virtual generated column"
                )
            chosen.append(col)
        return _hash_columns(table, chosen, self.zone)

    def image_columns(self, table: TableInfo) -> tuple[str, ...] | None:
        """The listed columns, by the table's names (None if one is missing)."""
        by_lower = {c.name.lower(): c.name for c in table.columns}
        names = [by_lower.get(name.lower()) for name in self.columns]
        return None if None in names else tuple(n for n in names if n is not None)


PartitionDispatcher = TableDispatcher | TsDispatcher | IndexValueDispatcher | ColumnsDispatcher


def partition_dispatcher(
    rule: str,
    index_name: str = "",
    columns: Sequence[str] = (),
    zone: datetime.tzinfo = datetime.UTC,
) -> PartitionDispatcher:
    """The dispatcher for a rule's ``partition``; unknown names fall back to ``table`` as ticdc
    does on Kafka. ``zone`` renders timestamp values for the value-hashing dispatchers."""
    name = rule.lower()
    if name in ("default", "table"):
        return TableDispatcher()
    if name == "ts":
        return TsDispatcher()
    if name in ("index-value", "rowid"):
        return IndexValueDispatcher(index_name, zone)
    if name == "columns":
        return ColumnsDispatcher(columns, zone)
    log.warning(
        "partition dispatcher %r is not default/table/ts/index-value/columns; using table", rule
    )
    return TableDispatcher()
