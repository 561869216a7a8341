"""Rows a generator builds and rows it only steps over: one partition owner's share of a table.

A table's values come from one RNG stream, so a process that wants some of its rows (a Spark
task playing some partitions of a topic) must draw every row's values all the same. It need not
build the others: no image kept, no JSON, no event. A ``RowSelection`` says, per table version,
which rows to build, from the row's key image: its primary and unique key columns, which the
generator derives from the row's sequence number and never draws. A row is chosen once, at its
INSERT, and keeps that choice until it is deleted, so the selection must depend on those keys
alone: a partition dispatcher hashing them (or nothing at all), not one hashing other columns or
the commit timestamp.

A stepped-over row still takes its place in the feed as a ``SkippedRow`` (its transaction's
commitTs and table), so a consumer can count it and number the rows after it as the whole feed
numbers them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple, Protocol

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


class SkippedRow(NamedTuple):
    """A row change the generator stepped over: one object per transaction, repeated."""

    commit_ts: int
    table: TableInfo


def selectable(scenario: Scenario, table: int) -> bool:
    """Whether rows of ``scenario``'s table ``table`` can be stepped over and still leave the
    others exact: no UPDATE gives a row new keys (which would move it to another owner), no
    ALTER reshapes the rows (a MODIFY COLUMN draws for values that no longer fit), and no
    transfer or multi-table transaction reads another row's values."""
    spec = scenario.tables[table]
    return (
        not spec.key_updates
        and spec.conserved is None
        and not scenario.ddls
        and scenario.storm is None
        and not scenario.transactions
    )
