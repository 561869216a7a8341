from __future__ import annotations

import json

import pytest

from tisink.model import ColumnInfo, IndexInfo, SchemaError, TableInfo, make_table


def test_round_trip_of_the_all_types_schema(simple_golden):
    raw = json.loads(
        (simple_golden / "unit-test-derived/TestNewTableSchema_t3.tableSchema.json").read_text()
    )
    table = TableInfo.from_dict(raw)
    again = TableInfo.from_dict(table.to_dict())
    assert again == table
    assert [c.name for c in table.columns] == [c["name"] for c in raw["columns"]]
    assert table.column_by_name["yearT"].zerofill and table.column_by_name["yearT"].unsigned
    assert table.column_by_name["enumT"].elements == ("a", "b", "c")
    assert table.column_by_name["binaryT"].binary and not table.column_by_name["charT"].binary


def test_handle_key_prefers_primary_then_not_null_unique():
    cols = [
        ColumnInfo("a", "int", nullable=False),
        ColumnInfo("b", "int", nullable=True),
        ColumnInfo("c", "int", nullable=False),
    ]
    nullable_uk = IndexInfo("uk_b", ("b",), unique=True)
    not_null_uk = IndexInfo("uk_c", ("c",), unique=True)
    t = make_table("s", "t", 1, 1, cols, [nullable_uk, not_null_uk])
    assert t.handle_key == ("c",)
    assert t.unique_keys == (("c",),)
    pk = IndexInfo("primary", ("a",), unique=True, primary=True)
    assert make_table("s", "t", 1, 1, cols, [not_null_uk, pk]).handle_key == ("a",)
    assert make_table("s", "t", 1, 1, cols, [nullable_uk]).handle_key == ()


def test_virtual_columns_are_not_stored():
    t = make_table(
        "s", "t", 1, 1, [ColumnInfo("a", "int"), ColumnInfo("g", "int", generated="virtual")]
    )
    assert [c.name for c in t.stored_columns] == ["a"]
    assert [c.id for c in t.columns] == [1, 2]


@pytest.mark.parametrize(
    ("columns", "indexes", "fragment"),
    [
        ([ColumnInfo("a", "integer")], [], "unknown mysqlType 'integer'"),
        ([ColumnInfo("a", "int"), ColumnInfo("a", "int")], [], "duplicate column 'a'"),
        ([ColumnInfo("a", "int")], [IndexInfo("i", ("zz",))], "missing column 'zz'"),
    ],
)
def test_bad_schemas_name_table_and_column(columns, indexes, fragment):
    with pytest.raises(SchemaError, match=fragment) as info:
        TableInfo("db", "tbl", 1, 1, tuple(columns), tuple(indexes))
    assert "db.tbl" in str(info.value)


def test_from_dict_reports_missing_keys():
    with pytest.raises(SchemaError, match=r"db\.t"):
        TableInfo.from_dict({"schema": "db", "table": "t", "columns": []})
