"""The first stage's routing: each row to the task that owns its (topic, partition).

The router is the MQ sink's own (``EventRouter`` with the changefeed's dispatch rules) and the
partition counts are the topics' real ones, so a row lands where the sink would have put it.
A key-changing UPDATE that the table sink would split into DELETE + INSERT is split here, by
the same ``SplitPolicy`` (the sink factory's), and each half routed on its own, as TiCDC
routes the halves (index-value hashes the old key for the DELETE and the new one for the
INSERT).

A routed row travels through the shuffle as ``((owner, commitTs, seq), value)``; the value
names the row's table by a DDL index of the plan instead of carrying the schema (the owner
rebuilds the row from it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence, Set
from typing import Any, Protocol

import numpy as np

from tisink.core.clock import Clock, FeedClock
from tisink.core.errors import TisinkError
from tisink.eventsink.router.bulk import BulkPartitioner
from tisink.feed.format.records import FeedRow
from tisink.feed.format.row_builder import LightRow, light_event
from tisink.feed.spark.errors import SparkPlanError
from tisink.feed.spark.plan import (
    INDEX_BITS,
    INDEX_MASK,
    INSERT_SUB,
    INSERT_TAIL,
    RECORD_SUB,
    Key,
    PlayPlan,
    record_seq,
)
from tisink.feed.workload import KeepRow
from tisink.feed.workload.selection import BulkKeep
from tisink.model.events import RowChangedEvent, RowChecksum
from tisink.model.table import TableInfo
from tisink.sink import ChangefeedConfig, SinkFactory
from tisink.sink.mq_sinks import new_router
from tisink.sink.uri import mask_uri
from tisink.tablesink.split import SplitPolicy, dml_order, key_changes

ShuffleKey = tuple[int, int, int]
"""(owner, commitTs, seq); seq -1 marks a stage-one report (sorted first)."""
RowValue = tuple[int, int, Any, Any, int, bool, RowChecksum | None]
"""(table's DDL index, startTs, before, after, approximate size, counts as a feed row, the
row's checksum: the feed's, or for a split UPDATE's half the one ``split_update`` gave it)."""


_MAX_LONG = (1 << 63) - 1

WHOLE, DELETE_HALF, INSERT_HALF = 0, 1, 2
"""A routed item's ``part``: the row whole, or one half of the UPDATE the router split."""


class CountsMessages(Protocol):
    """What counts each routed message for the BOOTSTRAP cadence: stage one's
    ``TableIntervals``, or the owners' ``StreamedBootstraps``."""

    def add(self, table_id: int, key: Key, ref: int) -> None: ...


class CountsRuns(CountsMessages, Protocol):
    """Counts messages in runs too: ``count`` messages of one table version and commitTs,
    the first at ``key`` (the owners' ``StreamedBootstraps``, for rows stepped over)."""

    def add_run(self, table_id: int, key: Key, ref: int, count: int) -> None: ...


AddItem = Callable[[int, int, int, int, int, int], None]
"""``add(owner, commitTs, seq, part, plan DDL, line index)``: one routed item of the exchange."""


class TakesRows(Protocol):
    """Where ``route_run`` hands its items (stage one's ``ExchangeBatches``)."""

    def add(self, owner: int, ts: int, seq: int, part: int, ref: int, index: int) -> None: ...

    def add_rows(
        self,
        owners: np.ndarray,
        ts: np.ndarray,
        hi: int,
        lo: np.ndarray,
        ref: int,
        indexes: np.ndarray,
    ) -> None: ...


class TableCounts(CountsMessages, Protocol):
    """Counts messages a run of one table's rows at a time too (stage one's
    ``TableIntervals``)."""

    def add_run(self, table_id: int, ts: np.ndarray, hi: int, lo: np.ndarray, ref: int) -> None: ...


def make_factory(
    sink_uri: str, config_text: str | None, clock: Clock, faults: str | None = None
) -> SinkFactory:
    """The play's SinkFactory, rebuilt in any process from the URI, the changefeed TOML text
    and ``--faults``. Spark's tasks are already the parallel encoders, so encoder processes
    (``encoder-concurrency``) are not used."""
    config = ChangefeedConfig.from_toml(config_text) if config_text else None
    if faults is not None:
        config = (config or ChangefeedConfig()).with_setting("faults", faults, "--faults")
    factory = SinkFactory(sink_uri, config, clock=clock)
    if factory.config.encoder_concurrency:
        factory.config = dataclasses.replace(factory.config, encoder_concurrency=0)
    return factory


class RowRouter:
    """Routes rows to owner indexes and encodes them for the shuffle. One per task.

    What a row's table decides (its plan DDL, topic, the topic's partition count and owners)
    is looked up once per table object; per row there is one partition dispatch."""

    def __init__(self, plan: PlayPlan) -> None:
        self._owners = {owner: index for index, owner in enumerate(plan.owners)}
        self._counts = plan.partition_counts
        self._table_ids = plan.table_ids
        self._tables = tuple(ddl.table for ddl in plan.ddls)
        self._split = SplitPolicy(plan.split_updates, plan.split_newarch)
        self._insert_tail = INSERT_TAIL if plan.split_newarch else 0
        self._router = None
        if plan.owners:
            target = make_factory(plan.sink_uri, plan.config_text, FeedClock()).mq_target()
            if target is None:
                shown = mask_uri(plan.sink_uri)
                raise SparkPlanError(f"{shown}: owners given for a sink without topics")
            self._router = new_router(target.default_topic, target.config)
        self._refs: dict[int, int] = {}
        self._routes: dict[int, _TableRoute] = {}
        self.split_txns: set[tuple[int, int]] = set()

    def learn(self, table: TableInfo, ref: int) -> None:
        """``table`` (this process's object) is the table of the plan's DDL ``ref``."""
        self._refs[id(table)] = ref
        self._routes.pop(id(table), None)

    def route(
        self,
        row: RowChangedEvent,
        place: int,
        counts: CountsMessages | None = None,
        record: FeedRow | None = None,
    ) -> list[tuple[ShuffleKey, RowValue | FeedRow]]:
        """The shuffle items of ``row``, the record at ``place`` of the feed; ``counts``
        counts each item's message (the BOOTSTRAP cadence). Given ``record`` (the row's own,
        handed to an owner in this process, not through a shuffle), an unsplit row's item
        carries that record, its row now naming the plan's table object, as the owner's
        rebuilt row would: the event is not built twice."""
        table = row.table
        route = self._routes.get(id(table))
        if route is None or route.table is not table:
            route = self._table_route(table, row.describe)
        items: list[tuple[ShuffleKey, RowValue | FeedRow]]
        if self._split.enabled and row.before is not None and row.after is not None:
            halves = self._split.halves(row)
        else:
            halves = None
        if halves is not None:
            self.split_txns.add((table.table_id, row.commit_ts))
            delete, insert = halves
            items = [
                self._item(route, delete, record_seq(place, RECORD_SUB), True),
                self._item(route, insert, record_seq(place, INSERT_SUB) | self._insert_tail, False),
            ]
        elif record is not None:
            plan_table = self._tables[route.ref]
            assert plan_table is not None  # rows only name DDLs with a table
            row.table = plan_table
            owner = 0
            if self._router is not None:  # the owner's sink reads the partition off the row
                if row.partition is None:  # else the generator's, from our ``kept_integers``
                    row.partition = self._router.partition_for_row(row, route.partitions)
                owner = route.owners[row.partition]
            items = [((owner, row.commit_ts, record_seq(place, RECORD_SUB)), record)]
        else:
            items = [self._item(route, row, record_seq(place, RECORD_SUB), True)]
        if counts is not None:
            table_id = self._table_ids[route.ref]
            for (_, ts, seq), _value in items:
                counts.add(table_id, (ts, seq), route.ref)
        return items

    def route_to(
        self,
        row: RowChangedEvent,
        place: int,
        index: int,
        add: AddItem,
        counts: CountsMessages | None = None,
    ) -> None:
        """As ``route``, for stage one's exchange, which carries no images: hands ``add`` each
        item's (owner, commitTs, seq, part, plan DDL, ``index``), ``part`` being ``WHOLE`` or
        the half of a split UPDATE; no value is built."""
        table = row.table
        route = self._routes.get(id(table))
        if route is None or route.table is not table:
            route = self._table_route(table, row.describe)
        ref = route.ref
        if self._split.enabled and row.before is not None and row.after is not None:
            halves = self._split.halves(row)
        else:
            halves = None
        if halves is not None:
            self._route_halves(route, row, halves, place, index, add, counts)
            return
        ts = row.commit_ts
        seq = place << 2 | RECORD_SUB
        add(self._owner_of(route, row), ts, seq, WHOLE, ref, index)
        if counts is not None:
            counts.add(self._table_ids[ref], (ts, seq), ref)

    def route_run(
        self,
        rows: Sequence[LightRow],
        indexes: Sequence[int],
        offset: int,
        out: TakesRows,
        counts: TableCounts | None = None,
    ) -> tuple[int, TisinkError] | None:
        """``route_to`` of each of ``rows`` (``LightRow``s: ``light_event`` is built only for
        a row routed one by one), in feed order, on lines ``indexes`` of a run of
        lines whose first is at place ``offset``, with whole rows handed to ``out`` a table at
        a time: where the table's dispatcher hashes one integer column, the partitions of all
        its rows holding a non-negative value there come from one ``bulk_partitioner`` call,
        and their messages are counted in spans (``TableIntervals.add_run``). The others (a
        split UPDATE's halves, a NULL, negative or beyond-a-long key, another dispatcher) are
        routed one by one. None, or (the index in ``rows``, the error) of the first row that
        cannot be routed; those before it are routed."""
        hi, base = offset >> INDEX_BITS, offset & INDEX_MASK
        groups: dict[int, _RunGroup] = {}
        table: TableInfo | None = None
        group: _RunGroup | None = None
        split = self._split.enabled
        for i, (ts, row_table, before, after, _) in enumerate(rows):
            try:
                if row_table is not table or group is None:
                    table = row_table
                    route = self._routes.get(id(table))
                    if route is None or route.table is not table:
                        route = self._table_route(table, light_event(rows[i]).describe)
                    group = groups.get(id(route))
                    if group is None:
                        group = groups[id(route)] = self._run_group(route)
                if (
                    split
                    and before is not None
                    and after is not None
                    and key_changes(table, before, after)
                ):
                    row = light_event(rows[i])
                    halves = self._split.halves(row)
                    assert halves is not None
                    at = indexes[i]
                    route = group.route
                    self._route_halves(route, row, halves, offset + at, at, out.add, counts)
                    continue
                column = group.column
                if column is not None:
                    image = after if after is not None else before
                    value = image.get(column) if image else None
                    if type(value) is int and 0 <= value <= _MAX_LONG:
                        group.owners.append(-1)
                        group.values.append(value)
                        group.ts.append(ts)
                        group.indexes.append(indexes[i])
                        continue
                group.owners.append(self._owner_of(group.route, light_event(rows[i])))
                group.ts.append(ts)
                group.indexes.append(indexes[i])
            except TisinkError as err:
                self._hand_over(groups, hi, base, out, counts)
                return i, err
        self._hand_over(groups, hi, base, out, counts)
        return None

    def _run_group(self, route: _TableRoute) -> _RunGroup:
        """The gathering of ``route``'s rows, with its bulk partitioner and the one column it
        hashes when it has one (a topic without partitions is refused row by row)."""
        router = self._router
        if router is None or route.partitions <= 0:
            return _RunGroup(route, None, None)
        bulk = router.bulk_partitioner(route.table)
        columns = router.image_columns(route.table)
        if bulk is None or not columns:
            return _RunGroup(route, None, None)
        return _RunGroup(route, columns[0], bulk)

    def _hand_over(
        self,
        groups: dict[int, _RunGroup],
        hi: int,
        base: int,
        out: TakesRows,
        counts: TableCounts | None,
    ) -> None:
        """The whole rows ``route_run`` gathered, to ``out`` and ``counts``."""
        for group in groups.values():
            if not group.ts:
                continue
            owners = np.array(group.owners, np.int32)
            if group.values:
                assert group.bulk is not None
                route = group.route
                partitions = group.bulk(np.array(group.values, np.int64), route.partitions)
                owners[owners < 0] = np.array(route.owners, np.int32)[partitions]
            ts = np.array(group.ts, np.int64)
            indexes = np.array(group.indexes, np.intp)
            lo = (indexes + base) << 2 | RECORD_SUB
            ref = group.route.ref
            out.add_rows(owners, ts, hi, lo, ref, indexes)
            if counts is not None:
                counts.add_run(self._table_ids[ref], ts, hi, lo, ref)

    def _route_halves(
        self,
        route: _TableRoute,
        row: RowChangedEvent,
        halves: tuple[RowChangedEvent, RowChangedEvent],
        place: int,
        index: int,
        add: AddItem,
        counts: CountsMessages | None,
    ) -> None:
        """The DELETE and INSERT halves of the UPDATE ``row`` the split policy split, each
        routed on its own (index-value hashes the old key for one, the new for the other)."""
        ts, ref = row.commit_ts, route.ref
        self.split_txns.add((row.table.table_id, ts))
        delete, insert = halves
        insert_seq = (place << 2 | INSERT_SUB) | self._insert_tail
        keys = (
            (self._owner_of(route, delete), place << 2 | RECORD_SUB, DELETE_HALF),
            (self._owner_of(route, insert), insert_seq, INSERT_HALF),
        )
        for owner, seq, part in keys:
            add(owner, ts, seq, part, ref, index)
            if counts is not None:
                counts.add(self._table_ids[ref], (ts, seq), ref)

    def count_skipped(
        self, table: TableInfo, commit_ts: int, place: int, counts: CountsRuns, count: int = 1
    ) -> None:
        """Count the messages of ``count`` rows in a row the generator stepped over
        (``SkippedRow``: they are not this task's) from ``place`` on, as ``route`` counts the
        rows it routes unsplit."""
        route = self._routes.get(id(table))
        if route is None or route.table is not table:
            route = self._table_route(table, lambda: f"table {table.qualified_name}")
        key = (commit_ts, record_seq(place, RECORD_SUB))
        counts.add_run(self._table_ids[route.ref], key, route.ref, count)

    def keeper(self, table: TableInfo, keys: tuple[str, ...], owned: Set[int]) -> KeepRow | None:
        """Whether a row of ``table`` goes to one of the ``owned`` owners, from its image of
        the ``keys`` columns: when the table's dispatcher reads those columns alone. None
        when it reads others, or the commit timestamp."""
        router = self._router
        if router is None:
            return None
        columns = router.image_columns(table)
        if columns is None or not set(columns) <= set(keys):
            return None
        route = self._routes.get(id(table))
        if route is None or route.table is not table:
            route = self._table_route(table, lambda: f"table {table.qualified_name}")
        owners, partitions = route.owners, route.partitions
        partition = router.partitioner(table)
        stand_in = RowChangedEvent(0, 0, table)  # a new image each call: the partitioner's input

        def keep(image: dict[str, Any]) -> bool:
            stand_in.after = image
            return owners[partition(stand_in, partitions)] in owned

        if not columns:  # the table's rows all go to one partition
            whole = keep({})
            return lambda image: whole
        return keep

    def kept_integers(
        self, table: TableInfo, column: str, values: np.ndarray, owned: Set[int]
    ) -> BulkKeep | None:
        """Whether each row of ``table`` whose image holds these ``values`` in the integer
        ``column`` goes to one of the ``owned`` owners, and its partition, worked out for all
        at once; None when the dispatcher reads more than that column (``keeper`` then tests
        row by row)."""
        router = self._router
        bulk = None if router is None else router.bulk_partitioner(table)
        if bulk is None or router is None or router.image_columns(table) != (column,):
            return None
        route = self._routes.get(id(table))
        if route is None or route.table is not table:
            route = self._table_route(table, lambda: f"table {table.qualified_name}")
        mine = np.array([owner in owned for owner in route.owners], dtype=bool)
        partitions = bulk(values, route.partitions)
        return BulkKeep(mine[partitions], partitions)

    def _table_route(self, table: TableInfo, describe: Callable[[], str]) -> _TableRoute:
        ref = self._refs.get(id(table))
        if ref is None:
            raise SparkPlanError(f"{describe()}: its schema is not one of the feed's DDLs")
        route = _TableRoute(table, ref)
        router = self._router
        if router is not None:
            topic = router.topic_for_table(table.schema, table.table)
            route.partitions = self._counts[topic]
            route.owners = [self._owners[(topic, p)] for p in range(route.partitions)]
        self._routes[id(table)] = route
        return route

    def _owner(self, route: _TableRoute, row: RowChangedEvent) -> int:
        assert self._router is not None
        return route.owners[self._router.partition_for_row(row, route.partitions)]

    def _owner_of(self, route: _TableRoute, row: RowChangedEvent) -> int:
        return 0 if self._router is None else self._owner(route, row)

    def _item(
        self, route: _TableRoute, row: RowChangedEvent, seq: int, counted: bool
    ) -> tuple[ShuffleKey, RowValue]:
        owner = self._owner_of(route, row)
        value = (
            route.ref,
            row.start_ts,
            row.before,
            row.after,
            row.approximate_size,
            counted,
            row.checksum,
        )
        return (owner, row.commit_ts, seq), value


class _RunGroup:
    """The whole rows of one table route that ``route_run`` gathers before handing them
    over: an owner each (-1 until the bulk partitioner gives it), commitTs, line index, and
    the key values of those the bulk partitioner takes."""

    __slots__ = ("bulk", "column", "indexes", "owners", "route", "ts", "values")

    def __init__(
        self, route: _TableRoute, column: str | None, bulk: BulkPartitioner | None
    ) -> None:
        self.route = route
        self.column = column
        self.bulk = bulk
        self.owners: list[int] = []
        self.ts: list[int] = []
        self.indexes: list[int] = []
        self.values: list[int] = []


class _TableRoute:
    """What one table object routes by: its plan DDL, its topic's partition count and the
    owner of each partition."""

    __slots__ = ("owners", "partitions", "ref", "table")

    def __init__(self, table: TableInfo, ref: int) -> None:
        self.table = table
        self.ref = ref
        self.partitions = 0
        self.owners: list[int] = []


def in_split_order(
    table_id: int, rows: list[RowChangedEvent], split_txns: Set[tuple[int, int]]
) -> list[RowChangedEvent]:
    """An owner's rows of one table with each transaction in ``split_txns`` (one whose UPDATE
    stage one split) sorted deletes first, as pingcap/tiflow sorts a transaction after
    splitting (pingcap/ticdc's order comes from the keys alone: ``INSERT_TAIL``)."""
    out: list[RowChangedEvent] = []
    start = 0
    for end in range(1, len(rows) + 1):
        if end < len(rows) and rows[end].commit_ts == rows[start].commit_ts:
            continue
        run = rows[start:end]
        if (table_id, rows[start].commit_ts) in split_txns:
            run.sort(key=dml_order)
        out.extend(run)
        start = end
    return out
