"""Every case of formats/ticdc-simple/golden/partition-dispatch/vectors.json through our API."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tisink.eventsink.router import DispatchRule, EventRouter, PositionInertia
from tisink.model.events import RowChangedEvent
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table


def _vectors() -> dict[str, Any]:
    # Parametrised cases are built before fixtures exist, so the path is the conftest's.
    data = Path(__file__).resolve().parents[2] / "data"
    path = data / "formats/ticdc-simple/golden/partition-dispatch/vectors.json"
    return json.loads(path.read_text())


VECTORS = _vectors()


def int_table(
    schema: str,
    name: str,
    column_names: list[str],
    indexes: Sequence[IndexInfo] = (),
) -> TableInfo:
    key_columns = {c for index in indexes for c in index.columns}
    columns = [ColumnInfo(c, "int", nullable=c not in key_columns) for c in column_names]
    return make_table(schema, name, 7, 1, columns, indexes)


def insert(table: TableInfo, values: dict[str, Any], commit_ts: int = 1) -> RowChangedEvent:
    return RowChangedEvent(commit_ts - 1, commit_ts, table, after=dict(values))


def router_for(partition: str, **rule: Any) -> EventRouter:
    return EventRouter("default-topic", [DispatchRule(("*.*",), partition=partition, **rule)])


def test_every_vector_group_is_mapped_to_a_test():
    mapped = {"hash", "position_inertia", "table", "default", "ts", "index_value_handle_key"}
    mapped |= {"index_value_named_index", "columns"}
    assert set(VECTORS) == mapped


@pytest.mark.parametrize("case", VECTORS["position_inertia"])
def test_position_inertia(case: dict[str, Any]):
    hasher = PositionInertia()
    for parts in case["writes"]:
        hasher.write(*(p.encode() for p in parts))
    assert hasher.sum32 == int(case["sum32"], 16)
    hasher.reset()
    assert hasher.sum32 == 0


@pytest.mark.parametrize("case", VECTORS["table"]["cases"])
def test_table_dispatcher(case: dict[str, Any]):
    n = VECTORS["table"]["partition_num"]
    table = int_table(case["schema"], case["table"], ["id"])
    row = insert(table, {"id": 1}, case["commitTs"])
    assert router_for("table").partition_for_row(row, n) == case["partition"]


@pytest.mark.parametrize("case", VECTORS["default"]["cases"])
def test_default_dispatcher_is_table_dispatch(case: dict[str, Any]):
    n = VECTORS["default"]["partition_num"]
    pk = IndexInfo("PRIMARY", tuple(case["handle_key"]), unique=True, primary=True)
    table = int_table(case["schema"], case["table"], list(case["columns"]), [pk])
    row = insert(table, case["columns"])
    assert EventRouter("t").partition_for_row(row, n) == case["partition"]
    assert router_for("default").partition_for_row(row, n) == case["partition"]
    assert router_for("no-such-dispatcher").partition_for_row(row, n) == case["partition"]


@pytest.mark.parametrize("case", VECTORS["ts"]["cases"])
def test_ts_dispatcher(case: dict[str, Any]):
    n = VECTORS["ts"]["partition_num"]
    table = int_table(case["schema"], case["table"], ["id"])
    row = insert(table, {"id": 1}, case["commitTs"])
    assert router_for("ts").partition_for_row(row, n) == case["partition"]


@pytest.mark.parametrize("case", VECTORS["index_value_handle_key"]["cases"])
@pytest.mark.parametrize("rule", ["index-value", "rowid", "Index-Value"])
def test_index_value_on_the_handle_key(case: dict[str, Any], rule: str):
    n = VECTORS["index_value_handle_key"]["partition_num"]
    pk = IndexInfo("PRIMARY", tuple(case["handle_key"]), unique=True, primary=True)
    table = int_table(case["schema"], case["table"], sorted(case["columns"]), [pk])
    row = insert(table, case["columns"])
    assert router_for(rule).partition_for_row(row, n) == case["partition"]
    # a DELETE hashes the old image the same way
    delete = RowChangedEvent(1, 2, table, before=dict(case["columns"]))
    assert router_for(rule).partition_for_row(delete, n) == case["partition"]


@pytest.mark.parametrize("case", VECTORS["index_value_named_index"]["cases"])
@pytest.mark.parametrize("spelling", [str.lower, str.upper, str])
def test_index_value_on_a_named_index(case: dict[str, Any], spelling):
    n = VECTORS["index_value_named_index"]["partition_num"]
    index = IndexInfo(case["index"], tuple(case["index_columns_in_order"]), unique=True)
    table = int_table(case["schema"], case["table"], list(case["columns"]), [index])
    row = insert(table, case["columns"])
    router = router_for("index-value", index=spelling(case["index"]))
    assert router.partition_for_row(row, n) == case["partition"]


@pytest.mark.parametrize("case", VECTORS["columns"]["cases"])
def test_columns_dispatcher(case: dict[str, Any]):
    n = VECTORS["columns"]["partition_num"]
    table = int_table(case["schema"], case["table"], case["column_names"])
    row = insert(table, case["columns"])
    router = router_for("columns", columns=tuple(case["dispatch_columns"]))
    assert router.partition_for_row(row, n) == case["partition"]
