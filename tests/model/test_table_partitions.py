"""Partition routing of ``TableInfo``: each kind routes a row image as TiDB does
(pingcap/tidb pkg/table/tables/partition.go), and partition ids follow the table's id."""

from __future__ import annotations

import pickle
import re
import zlib
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tisink.model.errors import SchemaError
from tisink.model.table import ColumnInfo, PartitionDef, PartitionInfo, TableInfo

INT64 = st.integers(-(2**63), 2**63 - 1)


def _table(
    kind: str, columns: tuple[str, ...], defs: list[PartitionDef], **types: str
) -> TableInfo:
    cols = [
        ColumnInfo("id", "bigint", id=1),
        ColumnInfo("u", "bigint", unsigned=True, id=2),
        ColumnInfo("s", "varchar", "utf8mb4", "utf8mb4_bin", length=16, id=3),
        ColumnInfo("c", "varchar", "utf8mb4", "utf8mb4_general_ci", length=16, id=4),
        ColumnInfo("d", "date", id=5),
        ColumnInfo("t", "datetime", id=6),
        ColumnInfo("f", "double", id=7),
    ]
    part = PartitionInfo(kind, columns, tuple(defs)).numbered(110)
    return TableInfo("s", "t", 110, 1, tuple(cols), (), part)


def _hash(n: int, column: str = "id") -> TableInfo:
    return _table("HASH", (column,), [PartitionDef(f"p{i}") for i in range(n)])


def test_partition_ids_follow_the_table_id_as_tidb_allocates_them() -> None:
    # pingcap/tiflow#11874: table 110 with partitions 111 and 112
    table = _hash(2)
    assert [d.id for d in table.partition.definitions] == [111, 112]  # type: ignore[union-attr]
    moved = table.renumbered(200)
    assert moved.table_id == 200
    assert [d.id for d in moved.partition.definitions] == [201, 202]  # type: ignore[union-attr]


def test_a_table_without_partitions_routes_to_itself_and_keeps_its_dict() -> None:
    plain = TableInfo("s", "t", 7, 1, (ColumnInfo("id", "int", id=1),))
    assert plain.physical_id({"id": 3}) == 7
    assert "partition" not in plain.to_dict()


@given(value=INT64, n=st.integers(1, 64))
def test_hash_is_mod_of_the_absolute_value(value: int, n: int) -> None:
    table = _hash(n)
    position = table.locate({"id": value})
    assert position == abs(value) % n  # Go's % keeps the sign, TiDB then negates it
    assert table.physical_id({"id": value}) == 111 + position


def test_hash_examples_negative_null_and_unsigned_past_int64() -> None:
    table = _hash(4)
    assert table.locate({"id": -7}) == 3  # -7 % 4 = -3 in Go, then 3
    assert table.locate({"id": None}) == 0
    wide = _hash(4, "u")
    assert wide.locate({"u": 2**64 - 1}) == 1  # read as int64: -1
    assert wide.locate({"u": 2**63}) == 0  # -2^63 % 4 = 0


def _range(bounds: list[int | None]) -> TableInfo:
    defs = [PartitionDef(f"p{i}", less_than=(b,)) for i, b in enumerate(bounds)]
    return _table("RANGE", ("id",), defs)


@given(value=INT64, bounds=st.lists(INT64, min_size=1, max_size=8, unique=True))
def test_range_takes_the_first_partition_whose_bound_is_above(
    value: int, bounds: list[int]
) -> None:
    ordered: list[int | None] = [*sorted(bounds), None]
    position = _range(ordered).locate({"id": value})
    upper = ordered[position]
    assert upper is None or value < upper
    assert all(value >= b for b in ordered[:position] if b is not None)


def test_range_null_goes_first_and_no_maxvalue_refuses() -> None:
    assert _range([10, None]).locate({"id": None}) == 0
    with pytest.raises(SchemaError, match="no partition holds the row"):
        _range([10, 20]).locate({"id": 20})


def test_range_columns_compare_column_by_column() -> None:
    defs = [
        PartitionDef("p0", less_than=("2000-01-01", 5)),
        PartitionDef("p1", less_than=("2010-01-01", None)),
        PartitionDef("p2", less_than=(None, None)),
    ]
    table = _table("RANGE COLUMNS", ("d", "id"), defs)
    assert table.locate({"d": "2000-01-01", "id": 4}) == 0
    assert table.locate({"d": "2000-01-01", "id": 5}) == 1
    assert table.locate({"d": "1999-12-31", "id": 999}) == 0
    assert table.locate({"d": "2010-01-01", "id": 10**9}) == 1  # below (.., MAXVALUE)
    assert table.locate({"d": "2010-01-02", "id": -1}) == 2
    assert table.locate({"d": None, "id": 9}) == 0


def test_range_columns_of_datetime_take_a_date_bound_as_midnight() -> None:
    defs = [PartitionDef("p0", less_than=("2024-01-01",)), PartitionDef("p1", less_than=(None,))]
    table = _table("RANGE COLUMNS", ("t",), defs)
    assert table.locate({"t": "2023-12-31 23:59:59.999999"}) == 0
    assert table.locate({"t": "2024-01-01 00:00:00"}) == 1


def test_list_finds_the_listing_partition_else_default() -> None:
    defs = [
        PartitionDef("p0", values=((1,), (2,), (None,))),
        PartitionDef("p1", values=((3,),)),
        PartitionDef("pd", default=True),
    ]
    table = _table("LIST", ("id",), defs)
    assert [table.locate({"id": v}) for v in (1, 2, None, 3, 4, -1)] == [0, 0, 0, 1, 2, 2]
    strict = _table("LIST", ("id",), defs[:2])
    with pytest.raises(SchemaError, match=r"no partition holds the row \(id=4\)"):
        strict.locate({"id": 4})


def test_list_columns_of_text_under_a_pad_space_collation() -> None:
    defs = [
        PartitionDef("p0", values=(("a", 1), ("b", 2))),
        PartitionDef("pd", default=True),
    ]
    table = _table("LIST COLUMNS", ("s", "id"), defs)
    assert table.locate({"s": "a  ", "id": 1}) == 0  # utf8mb4_bin ignores trailing spaces
    assert table.locate({"s": "b", "id": 1}) == 1


def _crc(*parts: bytes) -> int:
    crc = 0
    for part in parts:
        crc = zlib.crc32(part, crc)
    return crc


@given(value=INT64, text=st.text(max_size=12) | st.none(), n=st.integers(1, 32))
def test_key_is_crc32_of_each_columns_hash_key(value: int, text: str | None, n: int) -> None:
    table = _table("KEY", ("id", "s"), [PartitionDef(f"p{i}") for i in range(n)])
    key = b"\x00" if text is None else text.rstrip(" ").encode()
    assert table.locate({"id": value, "s": text}) == _crc(str(value).encode(), key) % n


def test_key_of_null_hashes_one_zero_byte() -> None:
    table = _table("KEY", ("id",), [PartitionDef(f"p{i}") for i in range(5)])
    assert table.locate({"id": None}) == zlib.crc32(b"\x00") % 5


@pytest.mark.parametrize(
    ("kind", "column", "message"),
    [
        ("HASH", "s", "column 's' (varchar, utf8mb4_bin) cannot route PARTITION BY HASH"),
        ("KEY", "c", "column 'c' (varchar, utf8mb4_general_ci) cannot route PARTITION BY KEY"),
        ("RANGE COLUMNS", "f", "column 'f' (double, binary) cannot route"),
        ("HASH", "nope", "partitioning column 'nope' is missing"),
    ],
)
def test_a_partitioning_the_router_cannot_follow_is_refused(
    kind: str, column: str, message: str
) -> None:
    defs = [PartitionDef("p0", less_than=(None,))]
    with pytest.raises(SchemaError, match=re.escape(message)):
        _table(kind, (column,), defs)


def test_the_partition_object_round_trips_through_the_feed_dict() -> None:
    defs = [
        PartitionDef("p0", values=((1,), (None,))),
        PartitionDef("pd", default=True),
    ]
    table = _table("LIST", ("id",), defs)
    obj: dict[str, Any] = table.to_dict()
    assert obj["partition"] == {
        "type": "LIST",
        "columns": ["id"],
        "definitions": [
            {"name": "p0", "id": 111, "in": [[1], [None]]},
            {"name": "pd", "id": 112, "in": [], "default": True},
        ],
    }
    assert TableInfo.from_dict(obj) == table
    ranged = _range([5, None])
    assert TableInfo.from_dict(ranged.to_dict()) == ranged
    assert ranged.to_dict()["partition"]["definitions"][1]["lessThan"] == [None]


def test_a_table_pickles_after_it_routed_rows() -> None:
    """Spark ships tables to its tasks: the compiled router is left out and rebuilt."""
    table = _hash(3)
    assert table.physical_id({"id": 4}) == 112
    again = pickle.loads(pickle.dumps(table))
    assert again == table
    assert again.physical_id({"id": 4}) == 112
