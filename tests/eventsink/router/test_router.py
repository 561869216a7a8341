"""EventRouter: rule order, topics for rows and DDL, active topics, dispatcher errors."""

from __future__ import annotations

import zlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.eventsink.errors import EventSinkError
from tisink.eventsink.router import (
    DispatchError,
    DispatchRule,
    EventRouter,
    FilterSyntaxError,
    RouterError,
    TopicExpressionError,
)
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table

RULES = [
    DispatchRule(("test_default1.*",), partition="default"),
    DispatchRule(("test_table.*",), partition="table", topic="hello_{schema}_world"),
    DispatchRule(("test.*",), partition="rowid", topic="hello_{schema}"),
    DispatchRule(("*.*", "!*.test"), partition="ts", topic="{schema}_{table}"),
    DispatchRule(("hard_code_schema.*",), topic="hard_code_topic"),
]


def table(
    schema: str = "test",
    name: str = "t",
    *,
    version: int = 1,
    columns: tuple[str, ...] = ("id", "a", "b"),
    indexes: tuple[IndexInfo, ...] = (IndexInfo("PRIMARY", ("id",), unique=True, primary=True),),
) -> TableInfo:
    keys = {c for i in indexes for c in i.columns}
    cols = [ColumnInfo(c, "int", nullable=c not in keys) for c in columns]
    return make_table(schema, name, 10, version, cols, indexes)


def row(t: TableInfo, values: dict[str, Any], commit_ts: int = 5) -> RowChangedEvent:
    return RowChangedEvent(commit_ts - 1, commit_ts, t, after=values)


def crc(*parts: str) -> int:
    return zlib.crc32("".join(parts).encode())


def test_first_matching_rule_wins_and_implicit_rule_catches_the_rest():
    router = EventRouter("cdc", RULES)
    assert router.topic_for_table("test_default1", "x") == "cdc"
    assert router.topic_for_table("test_table", "x") == "hello_test_table_world"
    assert router.topic_for_table("test", "x") == "hello_test"
    assert router.topic_for_table("sbs", "table2") == "sbs_table2"
    assert router.rule_for("sbs", "test").matcher == ("*.*",)  # excluded by !*.test
    assert router.topic_for_table("sbs", "test") == "cdc"
    # rule 4 matches *.* first, so rule 5 is never reached for this schema
    assert router.topic_for_table("hard_code_schema", "t") == "hard_code_schema_t"
    assert router.topic_for_table("hard_code_schema", "test") == "hard_code_topic"


def test_matching_is_case_insensitive_unless_asked():
    rules = [DispatchRule(("Shop.Orders",), topic="orders")]
    assert EventRouter("cdc", rules).topic_for_table("shop", "ORDERS") == "orders"
    assert EventRouter("cdc", rules, case_sensitive=True).topic_for_table("shop", "ORDERS") == "cdc"
    assert EventRouter("cdc", rules, case_sensitive=True).topic_for_table("Shop", "Orders") == (
        "orders"
    )


def test_rule_dispatchers_are_used_per_table():
    router = EventRouter("cdc", RULES)
    t = table("sbs", "table2")
    assert router.partition_for_row(row(t, {"id": 1}, commit_ts=37), 16) == 37 % 16
    t = table("test", "t")
    expected = (crc("test", "t") ^ crc("id", "9")) % 7
    assert router.partition_for_row(row(t, {"id": 9, "a": 1}), 7) == expected


def test_topic_for_row_uses_the_rows_table():
    router = EventRouter("cdc", RULES)
    assert router.topic_for_row(row(table("sbs", "t2"), {"id": 1})) == "sbs_t2"


def test_topic_for_ddl_prefers_the_table_before_the_ddl():
    router = EventRouter("cdc", [DispatchRule(("*.*",), topic="{schema}_{table}")])
    old, new = table("s", "old"), table("s", "new")
    rename = DDLEvent(10, DDLType.RENAME, "rename table s.old to s.new", new, old)
    assert router.topic_for_ddl(rename) == "s_old"
    create = DDLEvent(10, DDLType.CREATE, "create table s.new (...)", new)
    assert router.topic_for_ddl(create) == "s_new"
    drop_db = DDLEvent(10, DDLType.QUERY, "drop database s")
    assert router.topic_for_ddl(drop_db) == "cdc"


def test_active_topics_are_unique_in_order_plus_the_default():
    router = EventRouter("cdc", [DispatchRule(("a.*",), topic="{table}"), *RULES[:1]])
    tables = [table("a", "x"), table("b", "y"), table("a", "x"), table("a", "z")]
    assert router.active_topics(tables) == ["x", "cdc", "z"]
    assert router.active_topics([]) == ["cdc"]
    assert router.active_topics([table("a", "x")]) == ["x", "cdc"]


def test_null_columns_are_skipped_and_delete_uses_the_old_image():
    router = EventRouter("cdc", [DispatchRule(("*.*",), partition="columns", columns=("a", "b"))])
    t = table()
    expected = (crc("test", "t") ^ crc("a", "4")) % 1000
    assert router.partition_for_row(row(t, {"id": 1, "a": 4, "b": None}), 1000) == expected
    assert router.partition_for_row(row(t, {"id": 1, "a": 4}), 1000) == expected
    delete = RowChangedEvent(1, 2, t, before={"id": 1, "a": 4, "b": None})
    assert router.partition_for_row(delete, 1000) == expected
    update = RowChangedEvent(1, 2, t, before={"a": 99}, after={"id": 1, "a": 4})
    assert router.partition_for_row(update, 1000) == expected


def test_handle_key_falls_back_to_a_not_null_unique_index():
    router = EventRouter("cdc", [DispatchRule(("*.*",), partition="index-value")])
    uk = IndexInfo("uk", ("b",), unique=True)
    t = table(indexes=(uk,))
    expected = (crc("test", "t") ^ crc("b", "3")) % 1000
    assert router.partition_for_row(row(t, {"id": 1, "a": 2, "b": 3}), 1000) == expected
    no_key = table(indexes=())
    assert router.partition_for_row(row(no_key, {"id": 1}), 1000) == crc("test", "t") % 1000


def test_bound_dispatchers_follow_the_schema_version():
    router = EventRouter("cdc", [DispatchRule(("*.*",), partition="index-value", index="k")])
    v1 = table(indexes=(IndexInfo("k", ("a",), unique=True),))
    v2 = table(version=2, indexes=(IndexInfo("k", ("b",), unique=True),))
    values = {"id": 1, "a": 10, "b": 20}
    assert (
        router.partition_for_row(row(v1, values), 1000)
        == (crc("test", "t") ^ crc("a", "10")) % 1000
    )
    assert (
        router.partition_for_row(row(v2, values), 1000)
        == (crc("test", "t") ^ crc("b", "20")) % 1000
    )


def test_missing_index_names_the_table_and_index():
    router = EventRouter("cdc", [DispatchRule(("*.*",), partition="index-value", index="nope")])
    with pytest.raises(DispatchError, match=r"dispatch rule #1: table test\.t: index 'nope'"):
        router.partition_for_row(row(table(), {"id": 1}), 3)
    with pytest.raises(DispatchError, match="not found"):
        router.partitions_for_rows([row(table(), {"id": 2})], 3)
    # the topic does not depend on the dispatcher fitting the table
    assert router.topic_for_row(row(table(), {"id": 1})) == "cdc"


def test_route_cache_bound_keeps_results_correct(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr("eventsink.router.router._MAX_ROUTES", 2)
    router = EventRouter("cdc", [DispatchRule(("*.*",), topic="{table}", partition="index-value")])
    for n in range(6):
        t = table(name=f"t{n}")
        r = row(t, {"id": n})
        assert router.topic_for_row(r) == f"t{n}"
        expected = (crc("test", f"t{n}") ^ crc("id", str(n))) % 5
        assert router.partition_for_row(r, 5) == expected
        assert router.partition_for_row(r, 5) == expected


def test_named_index_must_be_unique():
    rule = DispatchRule(("*.*",), partition="index-value", index="idx_a")
    t = table(indexes=(IndexInfo("idx_a", ("a",)),))
    with pytest.raises(DispatchError, match=r"table test\.t: index 'idx_a' .* not unique"):
        EventRouter("cdc", [rule]).partition_for_row(row(t, {"id": 1, "a": 1}), 3)
    primary = DispatchRule(("*.*",), partition="index-value", index="primary")
    assert EventRouter("cdc", [primary]).partition_for_row(row(table(), {"id": 1}), 3) in range(3)


def test_missing_or_virtual_column_names_the_table_and_column():
    rule = DispatchRule(("*.*",), partition="columns", columns=("a", "ghost"))
    with pytest.raises(DispatchError, match=r"table test\.t: column 'ghost'"):
        EventRouter("cdc", [rule]).partition_for_row(row(table(), {"id": 1}), 3)
    virtual = make_table(
        "test", "v", 1, 1, [ColumnInfo("id", "int"), ColumnInfo("g", "int", generated="virtual")]
    )
    rule = DispatchRule(("*.*",), partition="columns", columns=("G",))
    with pytest.raises(DispatchError, match=r"table test\.v: column 'g' .* virtual"):
        EventRouter("cdc", [rule]).partition_for_row(row(virtual, {"id": 1}), 3)


def test_invalid_rules_name_the_rule():
    with pytest.raises(TopicExpressionError, match=r"dispatch rule #2 .*'bad topic'"):
        EventRouter("cdc", [DispatchRule(("a.*",)), DispatchRule(("b.*",), topic="bad topic")])
    with pytest.raises(FilterSyntaxError, match=r"dispatch rule #1 \(matcher \['a-b\.c'\]\)"):
        EventRouter("cdc", [DispatchRule(("a-b.c",))])


def test_router_errors_are_event_sink_errors():
    assert issubclass(RouterError, EventSinkError)
    for error in (DispatchError, FilterSyntaxError, TopicExpressionError):
        assert issubclass(error, RouterError)


def test_timestamps_hash_in_the_router_time_zone():
    ts_table = make_table(
        "s",
        "t",
        1,
        1,
        [ColumnInfo("ts", "timestamp", nullable=False)],
        [IndexInfo("PRIMARY", ("ts",), unique=True, primary=True)],
    )
    r = row(ts_table, {"ts": "2024-01-02 03:04:05"})
    rule = [DispatchRule(("*.*",), partition="index-value")]
    utc = EventRouter("cdc", rule, time_zone="UTC").partition_for_row(r, 1000)
    shanghai = EventRouter("cdc", rule, time_zone="Asia/Shanghai").partition_for_row(r, 1000)
    assert utc == (crc("s", "t") ^ crc("ts", "2024-01-02 03:04:05")) % 1000
    assert shanghai == (crc("s", "t") ^ crc("ts", "2024-01-02 11:04:05")) % 1000


def test_unknown_time_zone_is_a_router_error():
    with pytest.raises(RouterError, match="Mars/Olympus"):
        EventRouter("cdc", time_zone="Mars/Olympus")


def test_non_positive_partition_count_is_an_error_naming_table_and_topic():
    with pytest.raises(RouterError, match=r"table test\.t: topic 'cdc' has 0 partitions"):
        EventRouter("cdc").partition_for_row(row(table(), {"id": 1}), 0)


values = st.one_of(st.none(), st.integers(-(2**63), 2**64 - 1))


@settings(deadline=None)
@given(
    image=st.fixed_dictionaries({"id": st.integers(0, 2**32), "a": values, "b": values}),
    order=st.permutations(["id", "a", "b"]),
    partitions=st.integers(1, 512),
    dispatcher=st.sampled_from(["default", "table", "ts", "index-value", "columns"]),
    commit_ts=st.integers(0, 2**64 - 1),
)
def test_partition_in_range_and_independent_of_column_order(
    image, order, partitions, dispatcher, commit_ts
):
    rule = DispatchRule(("*.*",), partition=dispatcher, columns=("b", "a", "ID"))
    router = EventRouter("cdc", [rule])
    t = table()
    first = router.partition_for_row(row(t, image, commit_ts), partitions)
    reordered = {name: image[name] for name in order}
    assert 0 <= first < partitions
    assert router.partition_for_row(row(t, reordered, commit_ts), partitions) == first
    # column order in the schema does not matter either (XOR of per-column CRCs)
    shuffled = table(columns=tuple(order))
    assert (
        EventRouter("cdc", [rule]).partition_for_row(row(shuffled, image, commit_ts), partitions)
        == first
    )


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.tuples(st.booleans(), st.integers(-(2**40), 2**40) | st.none()), max_size=30),
    st.sampled_from(["default", "ts", "index-value", "columns"]),
    st.integers(1, 7),
)
def test_partitions_for_rows_equals_partition_for_row(
    specs: list[tuple[bool, int | None]], dispatcher: str, partitions: int
) -> None:
    """The per-transaction call gives each row what the per-row call gives, also when the rows
    switch between two tables."""
    columns = [ColumnInfo("id", "bigint", nullable=False), ColumnInfo("v", "int")]
    key = [IndexInfo("primary", ("id",), unique=True, primary=True)]
    tables = [make_table("s", name, i, 1, columns, key) for i, name in ((1, "a"), (2, "b"))]
    rule = DispatchRule(("*.*",), partition=dispatcher, columns=("v",) * (dispatcher == "columns"))
    router = EventRouter("t", [rule])
    rows = [
        RowChangedEvent(5, 6 + n, tables[second], after={"id": n, "v": value})
        for n, (second, value) in enumerate(specs)
    ]
    expected = [router.partition_for_row(row, partitions) for row in rows]
    assert EventRouter("t", [rule]).partitions_for_rows(rows, partitions) == expected


def test_avro_topic_rules_need_schema_and_table():
    """TiCDC's Avro rule: a per-table schema needs a per-table topic."""
    for topic in ("static", "cdc_{schema}", "{table}_{schema}"):
        rule = DispatchRule(("*.*",), topic=topic)
        if topic != "{table}_{schema}":  # fine for other protocols
            EventRouter("cdc", [rule])
        with pytest.raises(RouterError, match="for an Avro protocol"):
            EventRouter("cdc", [rule], avro_topic_rules=True)
    rule = DispatchRule(("*.*",), topic="cdc_{schema}_{table}")
    router = EventRouter("cdc", [rule], avro_topic_rules=True)
    assert router.topic_for_row(row(table(), {"id": 1})) == "cdc_test_t"


@settings(max_examples=40, deadline=None)
@given(
    rule=st.sampled_from(
        [
            DispatchRule(("*.*",), partition="default"),
            DispatchRule(("*.*",), partition="index-value"),
            DispatchRule(("*.*",), partition="index-value", index="uk"),
            DispatchRule(("*.*",), partition="columns", columns=("A", "b")),
        ]
    ),
    values=st.fixed_dictionaries({"id": st.integers(), "a": st.integers(), "b": st.integers()}),
)
def test_an_image_of_the_read_columns_alone_lands_where_the_row_does(
    rule: DispatchRule, values: dict[str, int]
) -> None:
    """``image_columns`` names every column the partition depends on: a stand-in row holding
    only those goes to the same partition (what lets a Spark task route a row by its keys)."""
    router = EventRouter("cdc", [rule])
    primary = IndexInfo("PRIMARY", ("id",), unique=True, primary=True)
    t = table(indexes=(primary, IndexInfo("uk", ("b", "a"), unique=True)))
    columns = router.image_columns(t)
    assert columns is not None
    stand_in = row(t, {name: values[name] for name in columns})
    assert router.partition_for_row(stand_in, 7) == router.partition_for_row(row(t, values), 7)
    assert router.partitioner(t)(stand_in, 7) == router.partition_for_row(stand_in, 7)


def test_the_ts_dispatcher_and_a_missing_index_or_column_read_no_image_alone():
    t = table()
    for rule in (
        DispatchRule(("*.*",), partition="ts"),
        DispatchRule(("*.*",), partition="index-value", index="nope"),
        DispatchRule(("*.*",), partition="columns", columns=("a", "nope")),
    ):
        assert EventRouter("cdc", [rule]).image_columns(t) is None
