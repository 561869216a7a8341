"""MySQL type codes and declared type text of TiDB columns."""

from __future__ import annotations

import pytest

from tisink.codec.dts.mysql_codes import TYPE_CODES, original_type, type_code
from tisink.model.mysqltypes import MYSQL_TYPES
from tisink.model.table import ColumnInfo


def test_every_tidb_type_has_a_code() -> None:
    assert set(TYPE_CODES) == set(MYSQL_TYPES)
    assert type_code(ColumnInfo("c", "mediumint")) == 9
    assert type_code(ColumnInfo("c", "decimal")) == 246
    assert type_code(ColumnInfo("c", "text", charset="utf8mb4")) == 252
    assert type_code(ColumnInfo("c", "timestamp", decimal=6)) == 7


@pytest.mark.parametrize(
    ("column", "text"),
    [
        (ColumnInfo("c", "int"), "int(11)"),
        (ColumnInfo("c", "int", unsigned=True), "int(10) unsigned"),
        (
            ColumnInfo("c", "bigint", length=20, unsigned=True, zerofill=True),
            "bigint(20) unsigned zerofill",
        ),
        (ColumnInfo("c", "tinyint", length=1), "tinyint(1)"),
        (ColumnInfo("c", "year"), "year(4)"),
        (ColumnInfo("c", "decimal", length=10, decimal=2), "decimal(10,2)"),
        (ColumnInfo("c", "decimal"), "decimal(10,0)"),
        (ColumnInfo("c", "double"), "double"),
        (ColumnInfo("c", "float", length=7, decimal=3), "float(7,3)"),
        (ColumnInfo("c", "varchar", length=20), "varchar(20)"),
        (ColumnInfo("c", "binary", length=16), "binary(16)"),
        (ColumnInfo("c", "bit", length=8), "bit(8)"),
        (ColumnInfo("c", "datetime", decimal=6), "datetime(6)"),
        (ColumnInfo("c", "timestamp"), "timestamp"),
        (ColumnInfo("c", "enum", elements=("a", "it's")), "enum('a','it''s')"),
        (ColumnInfo("c", "set", elements=("x", "y")), "set('x','y')"),
        (ColumnInfo("c", "longtext"), "longtext"),
        (ColumnInfo("c", "json"), "json"),
    ],
)
def test_original_type(column: ColumnInfo, text: str) -> None:
    assert original_type(column) == text
