"""The first stage's router: which rows a task may step over, tested against its own routing."""

from __future__ import annotations

from tests.feed.spark.tasks.test_owned_workload import PARTITIONS, SELECTED, SELECTED_CONFIG
from tisink.core.clock import WallClock
from tisink.feed.format.records import FeedDDL, FeedRow
from tisink.feed.spark.plan import PlayPlan, record_seq
from tisink.feed.spark.tasks.owned_workload import _OwnedRows
from tisink.feed.spark.tasks.routing import RowRouter, make_factory
from tisink.feed.workload import generate_records, generate_selected_records, parse_scenario
from tisink.model.events import DDLEvent
from tisink.sink.partition_owner import OwnedRouter

TOPIC = "tidb-cdc"


URI = f"file:///unused?protocol=simple&partition-num={PARTITIONS}"


def _router(ddls: list[DDLEvent], config: str) -> RowRouter:
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
    checked = 0
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
            checked += 1
    assert checked > 100


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
