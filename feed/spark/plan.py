"""What every task of a Spark play shares: the partition owners, the DDLs and watermark points.

The driver builds one ``PlayPlan`` and broadcasts it. The first stage uses it to route rows to
owners; a task playing one owner or several merges their rows with the events the plan gives
it (the DDLs of their topics, every watermark point, the start of rows) into one stream
ordered by (commitTs, feed order).
Ordering keys are ``(commitTs, seq)``: ``seq`` is the record's place in the feed times four
plus a sub-place (0: the start of rows, 1: the record or the DELETE half of a split UPDATE,
2: its INSERT half); a watermark sorts after everything at its ts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from tisink.codec.bootstrap import BootstrapSettings
from tisink.feed.format.records import FeedDDL
from tisink.feed.live_tables import tables_at
from tisink.feed.play_records import PlayRecord, RowsStart, WatermarkPoint
from tisink.feed.watermarks import points_of_intervals
from tisink.model.events import DDLEvent
from tisink.model.table import TableInfo
from tisink.sink.partition_owner import owned_by_topic

FIRST_PLACE = 1
"""Rows of a transaction are placed 1, 2, 3... (DDLs, which have commit ts of their own,
take place 0)."""
AFTER_ALL = 1 << 126
"""The ``seq`` of a watermark: after every record at its ts."""
START_SUB, RECORD_SUB, INSERT_SUB = 0, 1, 2
BLOCK_BITS = 44
INDEX_BITS = 28
"""A split holds fewer than 2**28 lines (splits are at most a few hundred MB)."""
INDEX_MASK = (1 << INDEX_BITS) - 1


def owner_tasks(owners: int, cores: int) -> int:
    """The tasks that play ``owners`` partition owners on ``cores`` cores (task ``t`` of ``T``
    plays owners ``t, t+T, ...``). The busiest task's share sets how long a play takes, and
    it cannot be less than ``owners / cores`` rounded up; every task also repeats the work of
    each transaction it has a part of. So the play takes the fewest tasks whose busiest has
    that share: 6 owners on 4 cores are 3 tasks of 2, not 2 + 2 + 1 + 1, which take as long
    and cost more."""
    owners = max(1, owners)
    share = -(-owners // max(1, min(owners, cores)))
    return -(-owners // share)


def place_of(rank: int, block_start: int, index: int) -> int:
    """The place of line ``index`` of a feed's split starting at byte ``block_start`` of the
    file of ``rank`` (files in name order): it orders lines as the feed does without counting
    lines across splits first."""
    return ((rank << BLOCK_BITS | block_start) << INDEX_BITS) | index


LO_BITS = INDEX_BITS + 2
"""A feed's ``seq`` (``place << 2 | sub``) crosses to stage two as two longs, ``hi`` and ``lo``:
a place's index in its split (under 2**28) and sub-place are the low bits, its file rank and
split start (``survey.place_of``) the high ones."""
LO_MASK = (1 << LO_BITS) - 1
INSERT_TAIL = 1 << (LO_BITS + 62)
"""Added to an INSERT half's seq under ``split_newarch``: it sorts after every other event of
its commit ts, in the order of the UPDATEs it came from. It is above every bit of a place
(a feed's split start is 44 bits of it), and in ``hi`` it is bit 62, so ``hi`` stays a long
for feeds of fewer than 2**18 files."""

Key = tuple[int, int]
"""(commitTs, seq): where an event sits in a partition's stream."""


PartitionRecord = PlayRecord


def record_seq(place: int, sub: int = RECORD_SUB) -> int:
    return place << 2 | sub


@dataclass(frozen=True)
class PlayPlan:
    """The broadcast plan of one play."""

    sink_uri: str
    config_text: str | None
    feed_clock: bool
    interval_ms: int
    owners: tuple[tuple[str, int], ...]
    """(topic, partition) of each owner task; empty when the sink has no partitions, and one
    task then plays everything into the factory's own sinks."""
    partition_counts: dict[str, int]
    ddls: tuple[DDLEvent, ...]
    """Every DDL of the input in feed order; a row names its table by the index of the DDL
    whose ``table`` it is."""
    ddl_keys: tuple[Key, ...]
    ddl_topics: tuple[str, ...]
    """The topic each DDL goes to (TiCDC's DDL topic rule), "" without partitions."""
    resolved: tuple[int, ...] = ()
    """The feed's own ``resolved`` records: watermark points too."""
    first_row: Key | None = None
    first_ts: int = 0
    last_ts: int = 0
    split_updates: bool = False
    """True when key-changing UPDATEs become DELETE + INSERT (routed each on its own)."""
    split_newarch: bool = True
    """The split's order (``tablesink/split.py``): pingcap/ticdc's, each DELETE in its UPDATE's
    place and the INSERTs at the end of the transaction (their keys carry ``INSERT_TAIL``), or
    pingcap/tiflow's, the transaction re-sorted deletes first by each owner."""
    rate: float | None = None
    """Rows per second for each owner (a task playing several paces their sum)."""
    stop_marker: str | None = None
    """A file whose appearance asks every owner to stop taking records (Ctrl-C)."""
    faults: str | None = None
    """``--faults``, over the TOML file's ``[sink] faults``."""
    intervals: tuple[int, ...] = ()
    """The commit-time intervals (indices) that hold records: the watermark policy's grid."""
    bootstrap: BootstrapSettings | None = None
    """The BOOTSTRAP cadence when the protocol sends BOOTSTRAPs to partition owners: stage one
    then counts each table's messages and the owners plan the sends (``bootstraps.py``)."""
    points: tuple[int, ...] = field(init=False)
    table_ids: tuple[int, ...] = field(init=False)
    """The table id of each plan DDL (-1 for a DDL without a table)."""

    def __post_init__(self) -> None:
        ids = tuple(-1 if d.table is None else d.table.table_id for d in self.ddls)
        object.__setattr__(self, "table_ids", ids)
        grid = points_of_intervals(self.intervals, self.interval_ms)
        ends = [self.last_ts] if self.last_ts else []
        object.__setattr__(self, "points", tuple(sorted({*grid, *self.resolved, *ends})))

    @property
    def tasks(self) -> int:
        return max(1, len(self.owners))

    def owners_of_task(self, task: int, tasks: int) -> list[int]:
        """The owners task ``task`` of ``tasks`` plays: every ``tasks``-th, from ``task``
        (Spark's ``repartitionById`` puts owner ``o`` in partition ``o % tasks``)."""
        return list(range(task, self.tasks, tasks))

    def live_tables(self, ts: int) -> list[TableInfo]:
        """The tables that exist once every DDL with commitTs <= ts is applied."""
        return tables_at(self.ddls, ts)

    def partitions_of(self, owners: Sequence[int]) -> list[tuple[str, int]]:
        """The (topic, partition) of each of ``owners``, in their order: a task's sinks number
        each topic's owned partitions 0, 1, ... in this order (``sink.partition_owner``)."""
        return [self.owners[owner] for owner in owners]

    def view_partitions(self, owners: Sequence[int]) -> dict[tuple[str, int], int]:
        """Each owned (topic, partition) -> its number in the view of the task owning
        ``owners`` (the numbering its sinks use: ``owned_by_topic``)."""
        owned = owned_by_topic(self.partitions_of(owners))
        return {(t, p): i for t, numbers in owned.items() for i, p in enumerate(numbers)}

    def owner_events(
        self, owners: Sequence[int], bootstraps: Iterable[tuple[Key, PartitionRecord]] = ()
    ) -> list[tuple[Key, PartitionRecord]]:
        """The events a task owning ``owners`` plays besides their rows, sorted by key: the
        DDLs of their topics, every watermark point, the start of rows and ``bootstraps``
        (after the start of rows at the same place)."""
        topics = {self.owners[owner][0] for owner in owners} if self.owners else None
        events: list[tuple[Key, PartitionRecord]] = [
            (key, FeedDDL(ddl.commit_ts, ddl.start_ts, ddl))
            for ddl, key, ddl_topic in zip(self.ddls, self.ddl_keys, self.ddl_topics, strict=True)
            if topics is None or ddl_topic in topics
        ]
        events.extend(((ts, AFTER_ALL), WatermarkPoint(ts)) for ts in self.points)
        if self.first_row is not None:
            events.append((self.first_row, RowsStart(self.first_row[0])))
        events.extend(bootstraps)
        events.sort(key=lambda item: item[0])
        return events
