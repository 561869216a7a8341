"""Schema files against TiCDC's vectors (``pkg/cloudstorage/schema_file_test.go``): the
checksums in the file names, the ``TableCol`` fields, and the indented JSON."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from tisink.eventsink.storage.schema_file import SchemaFile, ddl_action, table_column
from tisink.model.events import DDLEvent, DDLType
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo

TABLE1 = TableInfo(
    "schema1",
    "table1",
    20,
    100,
    (
        ColumnInfo("Id", "int", nullable=False, default=10),
        ColumnInfo("LastName", "varchar", length=128, nullable=False, default="Default LastName"),
        ColumnInfo("FirstName", "varchar", length=64, default="Default FirstName"),
        ColumnInfo("Birthday", "datetime", default=12345678),
    ),
    (IndexInfo("PRIMARY", ("Id",), unique=True, primary=True),),
)


def test_schema_file_paths_carry_ticdc_checksums() -> None:
    assert SchemaFile("schema1", None, 100).path() == "schema1/meta/schema_100_3233644819.json"
    assert SchemaFile("schema1", TABLE1, 100).path() == (
        "schema1/table1/meta/schema_100_3752767265.json"
    )


def test_the_checksum_ignores_the_ddl_and_the_column_order() -> None:
    plain = SchemaFile("schema1", TABLE1, 100)
    with_ddl = SchemaFile("schema1", TABLE1, 100, query="alter table x", action=5)
    assert plain.checksum() == with_ddl.checksum()
    reordered = TableInfo("schema1", "table1", 20, 100, TABLE1.columns[::-1], TABLE1.indexes)
    assert SchemaFile("schema1", reordered, 100).checksum() == plain.checksum()
    fewer = TableInfo("schema1", "table1", 20, 100, TABLE1.columns[:3], TABLE1.indexes)
    assert SchemaFile("schema1", fewer, 100).checksum() != plain.checksum()


def test_schema_file_json() -> None:
    text = SchemaFile("schema1", TABLE1, 100, query="alter table t add b date", action=5)
    data = text.to_json()
    assert data.startswith(b'{\n    "Table": "table1",\n    "Schema": "schema1",\n')
    assert orjson.loads(data) == {
        "Table": "table1",
        "Schema": "schema1",
        "Version": 1,
        "TableVersion": 100,
        "Query": "alter table t add b date",
        "Type": 5,
        "TableColumns": [
            {
                "ColumnName": "Id",
                "ColumnType": "INT",
                "ColumnPrecision": "11",
                "ColumnDefault": 10,
                "ColumnNullable": "false",
                "ColumnIsPk": "true",
            },
            {
                "ColumnName": "LastName",
                "ColumnType": "VARCHAR",
                "ColumnDefault": "Default LastName",
                "ColumnPrecision": "128",
                "ColumnNullable": "false",
            },
            {
                "ColumnName": "FirstName",
                "ColumnDefault": "Default FirstName",
                "ColumnType": "VARCHAR",
                "ColumnPrecision": "64",
            },
            {"ColumnName": "Birthday", "ColumnDefault": 12345678, "ColumnType": "DATETIME"},
        ],
        "TableColumnsTotal": 4,
    }


@pytest.mark.parametrize(
    ("column", "want"),
    [
        (ColumnInfo("", "time", decimal=5), {"ColumnType": "TIME", "ColumnScale": "5"}),
        (
            ColumnInfo("", "int", length=5, unsigned=True),
            {"ColumnType": "INT UNSIGNED", "ColumnPrecision": "5"},
        ),
        (
            ColumnInfo("", "float", length=12, decimal=3),
            {"ColumnType": "FLOAT", "ColumnPrecision": "12", "ColumnScale": "3"},
        ),
        (
            ColumnInfo("", "float", length=12, decimal=-1),
            {"ColumnType": "FLOAT", "ColumnPrecision": "12"},
        ),
        (
            ColumnInfo("", "double", length=7, decimal=3),
            {"ColumnType": "DOUBLE", "ColumnPrecision": "7", "ColumnScale": "3"},
        ),
        (ColumnInfo("", "tinyint", length=5), {"ColumnType": "TINYINT", "ColumnPrecision": "5"}),
        (ColumnInfo("", "bigint", length=20), {"ColumnType": "BIGINT", "ColumnPrecision": "20"}),
        (ColumnInfo("", "bit", length=5), {"ColumnType": "BIT", "ColumnPrecision": "5"}),
        (ColumnInfo("", "char", length=32), {"ColumnType": "CHAR", "ColumnPrecision": "32"}),
        (ColumnInfo("", "blob", length=100), {"ColumnType": "BLOB", "ColumnPrecision": "100"}),
        (ColumnInfo("", "text", length=100), {"ColumnType": "TEXT", "ColumnPrecision": "100"}),
        (
            ColumnInfo("", "longblob", length=5),
            {"ColumnType": "LONGBLOB", "ColumnPrecision": "5"},
        ),
        (ColumnInfo("", "enum"), {"ColumnType": "ENUM"}),
        (ColumnInfo("", "set"), {"ColumnType": "SET"}),
        (ColumnInfo("", "timestamp", decimal=2), {"ColumnType": "TIMESTAMP", "ColumnScale": "2"}),
        (ColumnInfo("", "timestamp", decimal=0), {"ColumnType": "TIMESTAMP"}),
        (ColumnInfo("", "datetime", decimal=2), {"ColumnType": "DATETIME", "ColumnScale": "2"}),
        (ColumnInfo("", "date", decimal=2), {"ColumnType": "DATE"}),
        (ColumnInfo("", "year", length=4), {"ColumnType": "YEAR", "ColumnPrecision": "4"}),
    ],
)
def test_table_col(column: ColumnInfo, want: dict[str, Any]) -> None:
    """``TestTableCol``'s vectors (a nullable column, so no ``ColumnNullable``)."""
    assert table_column(column, False, False) == {"ColumnName": "", **want}


def test_column_ids_with_output_column_id() -> None:
    entry = table_column(ColumnInfo("a", "int", length=11, id=7), False, True)
    assert list(entry) == ["ColumnId", "ColumnName", "ColumnType", "ColumnPrecision"]
    assert entry["ColumnId"] == "7"


@pytest.mark.parametrize(
    ("ddl_type", "query", "action"),
    [
        (DDLType.CREATE, "CREATE TABLE t (a int)", 3),
        (DDLType.ALTER, "ALTER TABLE t ADD COLUMN b int", 5),
        (DDLType.ALTER, "ALTER TABLE t DROP COLUMN b", 6),
        (DDLType.ALTER, "ALTER TABLE t MODIFY COLUMN b bigint", 12),
        (DDLType.TRUNCATE, "TRUNCATE TABLE t", 11),
        (DDLType.QUERY, "CREATE DATABASE `shop`", 1),
        (DDLType.QUERY, "DROP DATABASE IF EXISTS shop", 2),
    ],
)
def test_ddl_actions_are_tidb_numbers(ddl_type: DDLType, query: str, action: int) -> None:
    assert ddl_action(DDLEvent(1, ddl_type, query)) == action
