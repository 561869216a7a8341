"""Rows a generator builds and rows it only steps over: one partition owner's share of a table.

A row's values come from the row's own stream, so a process that wants some of a table's rows
(a Spark task playing some partitions of a topic) draws nothing for the others: it only follows
the table's operation stream (which row each change touches) and builds no image, JSON or
event for them. A ``RowSelection`` says, per table version,
which rows to build, from the row's key image: its primary and unique key columns, which the
generator derives from the row's sequence number and never draws. A row is chosen once, at its
INSERT, and keeps that choice until it is deleted, so the selection must depend on those keys
alone: a partition dispatcher hashing them (or nothing at all), not one hashing other columns or
the commit timestamp.

Stepped-over rows still take their places in the feed as a ``SkippedRow`` (their transaction's
commitTs and table, and how many in a row), so a consumer can count them and number the rows
after them as the whole feed numbers them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np

from tisink.feed.workload.specs import Scenario
from tisink.model.table import TableInfo

Image = dict[str, Any]
KeepRow = Callable[[Image], bool]
"""Whether to build the row with this key image."""


class RowSelection(Protocol):
    """Chooses the rows a generator builds (``generate_records(select=...)``)."""

    def keeper(self, table: TableInfo, keys: tuple[str, ...]) -> KeepRow | None:
        """The test of ``table``'s rows by their image of the ``keys`` columns (the ones the
        generator derives from the row's sequence number), or None to build every row."""
        ...


class BulkKeep(NamedTuple):
    """A bulk test's answer for many rows (``KeepsInBulk``)."""

    kept: np.ndarray
    """Whether each row is kept (bool)."""
    partitions: np.ndarray | None = None
    """The partition of its topic each row goes to, where the test worked it out to decide
    (a dispatcher's hash): a kept row carries it (``RowChangedEvent.partition``), so no one
    dispatches the row again."""


@runtime_checkable
class KeepsInBulk(Protocol):
    """A selection that tests many rows at once by one integer key column."""

    def kept_integers(self, table: TableInfo, column: str, values: np.ndarray) -> BulkKeep | None:
        """Which rows whose image holds these ``values`` in ``column`` are kept; None when
        the test reads more than that column (``keeper`` then tests row by row)."""
        ...


class SkippedRow(NamedTuple):
    """``count`` row changes in a row of one transaction that the generator stepped over."""

    commit_ts: int
    table: TableInfo
    rows: int = 1


def selectable(scenario: Scenario, table: int) -> bool:
    """Whether rows of ``scenario``'s table ``table`` can be stepped over and still leave the
    others exact. A row's values are its own (``draws``), and an ALTER draws a kept row's new
    values from the row alone, so what is left out is what moves a row to another owner or
    reads another row: an UPDATE that gives a row new keys, a DDL that renames the table or
    changes a key column (the dispatcher may then route the row elsewhere), transfers
    (which read the rows they move amounts between), and partitioning on a column outside
    the unique keys (its UPDATEs may move rows between partitions, one row becoming two).
    DDL storms only touch columns outside every index."""
    spec = scenario.tables[table]
    if spec.key_updates or spec.conserved is not None:
        return False
    if spec.partition is not None:  # an UPDATE of a column outside the unique keys may
        # move the row to another partition: a DELETE and an INSERT instead of one row
        unique = {name for index in spec.indexes if index.unique for name in index.columns}
        if not set(spec.partition.columns) <= unique:
            return False
    keys = {name for index in spec.indexes for name in index.columns}
    for ddl in scenario.ddls:
        if ddl.table != table:
            continue
        if ddl.action == "rename":
            return False
        changed = ddl.column.column.name if ddl.column is not None else ddl.name
        if ddl.action in ("drop_column", "modify_column") and changed in keys:
            return False
    return True
