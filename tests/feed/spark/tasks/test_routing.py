"""The first stage's router: which rows a task may step over, tested against its own routing."""

from __future__ import annotations

from itertools import accumulate

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.feed.spark.tasks.test_owned_workload import PARTITIONS, SELECTED, SELECTED_CONFIG
from tisink.core.clock import WallClock
from tisink.eventsink.errors import EventSinkError
from tisink.feed.format.records import FeedDDL, FeedRow
from tisink.feed.format.row_builder import LightRow, light_row
from tisink.feed.spark.bootstraps import TableIntervals
from tisink.feed.spark.plan import LO_BITS, PlayPlan, place_of, record_seq
from tisink.feed.spark.tasks.owned_workload import _OwnedRows
from tisink.feed.spark.tasks.routing import (
    DELETE_HALF,
    INSERT_HALF,
    WHOLE,
    RowRouter,
    make_factory,
)
from tisink.feed.workload import generate_records, generate_selected_records, parse_scenario
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table
from tisink.model.tso import compose_ts
from tisink.sink.partition_owner import OwnedRouter

TOPIC = "tidb-cdc"
INDEX_VALUE = '[[sink.dispatchers]]\nmatcher = ["*.*"]\npartition = "index-value"\n'


URI = f"file:///unused?protocol=simple&partition-num={PARTITIONS}"


def _router(ddls: list[DDLEvent], config: str, split_newarch: bool | None = None) -> RowRouter:
    """The router of a plan of ``ddls``; with ``split_newarch``, UPDATEs that change a key are
    split, in that order."""
    plan = PlayPlan(
        sink_uri=URI,
        config_text=config,
        feed_clock=True,
        interval_ms=1000,
        owners=tuple((TOPIC, p) for p in range(PARTITIONS)),
        partition_counts={TOPIC: PARTITIONS},
        ddls=tuple(ddls),
        ddl_keys=tuple((d.commit_ts, record_seq(i + 1)) for i, d in enumerate(ddls)),
        ddl_topics=(TOPIC,) * len(ddls),
        split_updates=split_newarch is not None,
        split_newarch=True if split_newarch is None else split_newarch,
    )
    router = RowRouter(plan)
    for ref, ddl in enumerate(ddls):
        assert ddl.table is not None
        router.learn(ddl.table, ref)
    return router


def test_a_task_keeps_by_key_exactly_the_rows_its_owners_are_routed() -> None:
    records = list(generate_records(parse_scenario(SELECTED, "selected.toml"), 5, 800))
    router = _router([r.ddl for r in records if type(r) is FeedDDL], SELECTED_CONFIG)
    keys = {"sbtest1": ("id",), "items": ("id", "code"), "log": ("id",)}
    owned = {0, 3}
    seen = {True: 0, False: 0}
    for record in records:
        if type(record) is not FeedRow:
            continue
        row = record.row
        [((owner, _, _), _)] = router.route(row, 1)
        keep = router.keeper(row.table, keys[row.table.table], owned)
        if row.table.table == "log":  # dispatched by a column that is not a key
            assert keep is None
            continue
        assert keep is not None
        image = row.after if row.after is not None else row.before
        assert image is not None
        kept = keep({name: image[name] for name in keys[row.table.table]})
        assert kept == (owner in owned)
        seen[kept] += 1
    assert min(seen.values()) > 100


def test_no_keeper_for_the_ts_dispatcher_or_a_column_outside_the_keys() -> None:
    records = list(generate_records(parse_scenario(SELECTED, "selected.toml"), 5, 50))
    ddls = [r.ddl for r in records if type(r) is FeedDDL]
    items = next(d.table for d in ddls if d.table is not None and d.table.table == "items")
    by_ts = _router(ddls, '[[sink.dispatchers]]\nmatcher = ["*.*"]\npartition = "ts"\n')
    assert by_ts.keeper(items, ("id", "code"), {0}) is None
    by_price = (
        '[[sink.dispatchers]]\nmatcher = ["*.*"]\npartition = "columns"\ncolumns = ["price"]\n'
    )
    assert _router(ddls, by_price).keeper(items, ("id", "code"), {0}) is None
    by_table = '[[sink.dispatchers]]\nmatcher = ["*.*"]\npartition = "table"\n'
    whole = _router(ddls, by_table)
    [((owner, _, _), _)] = whole.route(
        next(r.row for r in records if type(r) is FeedRow and r.row.table is items), 1
    )
    keep = whole.keeper(items, ("id", "code"), {owner})
    assert keep is not None and keep({"id": 1, "code": "k1"})
    other = whole.keeper(items, ("id", "code"), set(range(PARTITIONS)) - {owner})
    assert other is not None and not other({"id": 1, "code": "k1"})


def test_a_row_routed_in_its_task_carries_the_partition_its_sink_would_give_it() -> None:
    records = list(generate_records(parse_scenario(SELECTED, "selected.toml"), 5, 400))
    router = _router([r.ddl for r in records if type(r) is FeedDDL], SELECTED_CONFIG)
    target = make_factory(URI, SELECTED_CONFIG, WallClock()).mq_target()
    assert target is not None and target.default_topic == TOPIC
    owned = (1, 2, 4)  # the view numbers them 0, 1, 2
    sink_router = OwnedRouter(TOPIC, target.config, {TOPIC: owned}, {TOPIC: PARTITIONS})
    checked: list[tuple[RowChangedEvent, int]] = []
    stranger = None
    for record in records:
        if type(record) is not FeedRow:
            continue
        row = record.row
        [((owner, _, _), _)] = router.route(row, 1, record=record)
        assert row.partition == owner  # the plan's owners are the topic's partitions in order
        fresh = row.replace()  # a copy is not routed: the sink dispatches it from its keys
        assert fresh.partition is None
        if owner in owned:
            view = owned.index(owner)
            assert sink_router.partition_for_row(row, len(owned)) == view
            assert sink_router.partition_for_row(fresh, len(owned)) == view
            checked += [(row, view), (fresh, view)]
        else:
            stranger = row
    assert len(checked) > 200
    # a merged request: rows of several tables, routed and not, each in its view partition
    rows = [row for row, _ in checked]
    assert len({id(row.table) for row in rows}) > 1
    assert sink_router.partitions_for_rows(rows, len(owned)) == [view for _, view in checked]
    assert stranger is not None
    with pytest.raises(EventSinkError, match="reached a task that does not own it"):
        sink_router.partitions_for_rows([*rows[:3], stranger], len(owned))


def test_rows_a_task_builds_carry_the_partitions_its_bulk_test_found() -> None:
    scenario = parse_scenario(SELECTED, "selected.toml")
    records = list(generate_records(scenario, 5, 1500))
    ddls = [r.ddl for r in records if type(r) is FeedDDL]
    router, check = _router(ddls, SELECTED_CONFIG), _router(ddls, SELECTED_CONFIG)
    owned = {1, 4}
    select = _OwnedRows(router, owned)
    carried = {True: 0, False: 0}
    refs = iter(range(len(ddls)))
    for record in generate_selected_records(scenario, 5, 1500, select):
        if type(record) is FeedDDL:  # this walk's table objects, as a task learns them
            ref = next(refs)
            if record.ddl.table is not None:
                router.learn(record.ddl.table, ref)
                check.learn(record.ddl.table, ref)
        if type(record) is not FeedRow:
            continue
        row = record.row
        carried[row.partition is not None] += 1
        if row.partition is not None:  # sbtest1, hashed by its integer key in bulk
            assert row.table.table == "sbtest1"
            [((owner, _, _), _)] = check.route(row.replace(), 1)  # dispatched from its keys
            assert row.partition == owner and owner in owned
    assert carried[True] > 100 and carried[False] > 20  # the others' keys are not integers


_BULK_TABLES = (
    make_table(  # index-value hashes its integer key: the bulk path
        "s",
        "ints",
        11,
        1,
        [ColumnInfo("id", "bigint", nullable=False, unsigned=True), ColumnInfo("v", "int")],
        [IndexInfo("primary", ("id",), unique=True, primary=True)],
    ),
    make_table(  # a text key: routed row by row
        "s",
        "texts",
        12,
        1,
        [ColumnInfo("code", "varchar", charset="utf8mb4", collate="utf8mb4_bin", length=8)],
        [IndexInfo("primary", ("code",), unique=True, primary=True)],
    ),
)
_KEYS = st.one_of(
    st.integers(0, 50), st.integers(-5, -1), st.integers(2**63 - 2, 2**64 - 1), st.none()
)


@st.composite
def _run_rows(draw: st.DrawFn) -> list[RowChangedEvent]:
    """Rows of both tables in feed order (commitTs never going back), keys of every kind the
    bulk path must take or leave: small, negative, beyond a long, NULL; UPDATEs that change
    their key (split in two) and UPDATEs that keep it."""
    rows = []
    ts = compose_ts(1_000)
    for _ in range(draw(st.integers(0, 40))):
        ts += draw(st.sampled_from([0, 0, 1, 1 << 18, 1000 << 18]))
        table = draw(st.sampled_from(_BULK_TABLES))
        name = table.columns[0].name

        def image(table: TableInfo = table, name: str = name) -> dict[str, object]:
            key = draw(_KEYS)
            value = key if table.table_id == 11 or key is None else str(key)
            return {name: value}

        op = draw(st.sampled_from(["INSERT", "DELETE", "UPDATE", "UPDATE same key"]))
        before = image() if op != "INSERT" else None
        after = image() if op != "DELETE" else None
        if op == "UPDATE same key":
            after = dict(before or {})
        rows.append(RowChangedEvent(ts - 5, ts, table, before, after))
    return rows


class _Items:
    """Collects what stage one's router hands the exchange, as (owner, ts, seq, part, ref,
    line index)."""

    def __init__(self) -> None:
        self.items: list[tuple[int, int, int, int, int, int]] = []

    def add(self, owner: int, ts: int, seq: int, part: int, ref: int, index: int) -> None:
        self.items.append((owner, ts, seq, part, ref, index))

    def add_rows(
        self,
        owners: np.ndarray,
        ts: np.ndarray,
        hi: int,
        lo: np.ndarray,
        ref: int,
        indexes: np.ndarray,
    ) -> None:
        for owner, t, low, index in zip(owners, ts, lo, indexes, strict=True):
            self.add(int(owner), int(t), hi << LO_BITS | int(low), WHOLE, ref, int(index))


def _light(rows: list[RowChangedEvent]) -> list[LightRow]:
    """The rows as stage one's reader gives them to ``route_run``."""
    return [light_row(row) for row in rows]


def _stage_one_router(split_newarch: bool) -> RowRouter:
    ddls = [DDLEvent(1 + i, DDLType.CREATE, "", t) for i, t in enumerate(_BULK_TABLES)]
    return _router(ddls, INDEX_VALUE, split_newarch)


@settings(max_examples=150, deadline=None)
@given(
    rows=_run_rows(),
    gaps=st.lists(st.integers(0, 3), min_size=40, max_size=40),
    offset=st.sampled_from([0, place_of(0, 0, 17), place_of(3, 5 << 30, 1000)]),
    newarch=st.booleans(),
)
def test_a_run_routed_in_bulk_gives_the_items_and_counts_of_routing_row_by_row(
    rows: list[RowChangedEvent], gaps: list[int], offset: int, newarch: bool
) -> None:
    """``route_run`` against ``route_to`` row by row: the same exchange items, the same
    transactions split, the same BOOTSTRAP counts, whichever path each row takes (rows on
    lines with blank lines or DDLs between them: ``gaps``)."""
    indexes = list(accumulate(gap + 1 for gap in gaps[: len(rows)]))
    one, bulk = _stage_one_router(newarch), _stage_one_router(newarch)
    table_ids = [t.table_id for t in _BULK_TABLES]
    one_items, bulk_items = _Items(), _Items()
    one_counts, bulk_counts = TableIntervals(1000, table_ids), TableIntervals(1000, table_ids)
    for row, index in zip(rows, indexes, strict=False):
        one.route_to(row, offset + index, index, one_items.add, one_counts)
    assert bulk.route_run(_light(rows), indexes, offset, bulk_items, bulk_counts) is None
    assert sorted(bulk_items.items) == sorted(one_items.items)
    assert len(bulk_items.items) >= len(rows)
    assert bulk.split_txns == one.split_txns
    by_interval = {(t.table_id, t.interval): t for t in one_counts.entries()}
    assert {(t.table_id, t.interval): t for t in bulk_counts.entries()} == by_interval


def test_a_run_names_the_first_row_it_cannot_route_having_routed_those_before() -> None:
    router = _stage_one_router(True)
    stranger = make_table(
        "s",
        "unknown",
        99,
        1,
        [ColumnInfo("id", "int")],
        [IndexInfo("primary", ("id",), True, True)],
    )
    ts = compose_ts(2_000)
    ints = _BULK_TABLES[0]
    rows = [
        RowChangedEvent(ts, ts, ints, None, {"id": 1}),
        RowChangedEvent(ts, ts, ints, None, {"id": 2}),
        RowChangedEvent(ts, ts, stranger, None, {"id": 3}),
        RowChangedEvent(ts, ts, ints, None, {"id": 4}),
    ]
    items = _Items()
    unrouted = router.route_run(_light(rows), [0, 1, 2, 3], 0, items, None)
    assert unrouted is not None
    index, err = unrouted
    assert index == 2
    assert "s.unknown" in str(err) and "not one of the feed's DDLs" in str(err)
    assert sorted(i[5] for i in items.items) == [0, 1]


def test_an_insert_half_sorts_last_in_its_transaction_deep_into_a_large_file() -> None:
    """A split starting at byte 3 GB puts bits 60 and 61 into a place's seq: the INSERT half
    of a key-changing UPDATE must still sort after its transaction's other rows, and its
    seq's high long must stay a long."""
    router = _stage_one_router(True)
    ts = compose_ts(3_000)
    ints = _BULK_TABLES[0]
    update = RowChangedEvent(ts, ts, ints, {"id": 1}, {"id": 2})
    insert = RowChangedEvent(ts, ts, ints, None, {"id": 3})
    items = _Items()
    at = place_of(2, 3 << 30, 0)
    assert router.route_run(_light([update, insert]), [0, 1], at, items) is None
    in_order = sorted(items.items, key=lambda item: (item[1], item[2]))
    assert [item[3] for item in in_order] == [DELETE_HALF, WHOLE, INSERT_HALF]
    assert all(0 <= item[2] >> LO_BITS < 2**63 for item in items.items)
