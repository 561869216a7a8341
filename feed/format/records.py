"""The typed records of a change feed file (spec/feed-format.md, "Records")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

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


@dataclass(slots=True)
class FeedResolved:
    """A ``resolved`` record: no later record has commitTs <= ``ts``."""

    ts: int
    source: Source | None = None


FeedRecord = FeedDDL | FeedRow | FeedResolved
