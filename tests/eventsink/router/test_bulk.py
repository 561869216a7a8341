"""The bulk partitioner gives every row the partition the row-by-row one gives."""

from __future__ import annotations

import zlib

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.eventsink.router import DispatchRule, EventRouter
from tisink.eventsink.router.bulk import crc32_of_decimals
from tisink.model.events import RowChangedEvent
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo

VALUES = st.lists(st.integers(0, 2**63 - 1), min_size=1, max_size=60)


@given(VALUES, st.integers(0, 2**32 - 1))
def test_crc_of_decimals_is_zlibs(values: list[int], start: int) -> None:
    got = crc32_of_decimals(np.array(values, dtype=np.int64), start).tolist()
    assert got == [zlib.crc32(str(v).encode(), start) for v in values]


def _table(key_type: str, name: str = "id") -> TableInfo:
    columns = (ColumnInfo(name, key_type, nullable=False), ColumnInfo("v", "varchar", length=9))
    index = IndexInfo("PRIMARY", (name,), unique=True, primary=True)
    return TableInfo("shop", "orders", 7, 1, columns, (index,))


@settings(deadline=None)
@given(
    values=VALUES,
    partitions=st.integers(1, 64),
    rule=st.sampled_from(["index-value", "columns"]),
    key_type=st.sampled_from(["int", "bigint", "tinyint"]),
)
def test_bulk_partitions_are_the_row_by_row_ones(
    values: list[int], partitions: int, rule: str, key_type: str
) -> None:
    columns = ("ID",) if rule == "columns" else ()
    router = EventRouter("t", [DispatchRule(("*.*",), partition=rule, columns=columns)])
    table = _table(key_type)
    bulk = router.bulk_partitioner(table)
    assert bulk is not None
    got = bulk(np.array(values, dtype=np.int64), partitions).tolist()
    rows = [RowChangedEvent(1, 2, table, None, {"id": v, "v": "x"}) for v in values]
    assert got == [router.partition_for_row(row, partitions) for row in rows]


def test_no_bulk_form_where_the_bytes_are_not_decimals() -> None:
    text = EventRouter("t", [DispatchRule(("*.*",), partition="index-value")])
    assert text.bulk_partitioner(_table("varchar")) is None
    by_ts = EventRouter("t", [DispatchRule(("*.*",), partition="ts")])
    assert by_ts.bulk_partitioner(_table("int")) is None
    two = EventRouter("t", [DispatchRule(("*.*",), partition="columns", columns=("id", "v"))])
    assert two.bulk_partitioner(_table("int")) is None
