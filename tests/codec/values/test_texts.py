"""The texts canal-json and CSV share come from one place; the rest is each protocol's."""

from __future__ import annotations

import datetime

import pytest

from tisink.codec.values.texts import tidb_text
from tisink.model import ColumnInfo

UTC = datetime.UTC


@pytest.mark.parametrize(
    ("mysql_type", "value", "text"),
    [
        ("int", 7, "7"),
        ("year", 2024, "2024"),
        ("bit", 5, "5"),
        ("decimal", "-1.50", "-1.50"),
        ("varchar", "a,b", "a,b"),
        ("datetime", "2024-01-02 03:04:05", "2024-01-02 03:04:05"),
        ("timestamp", "2024-01-02 03:04:05", "2024-01-02 03:04:05"),
        ("json", {"a": [1, 2]}, '{"a": [1, 2]}'),
        ("vector", [1.5, 2], "[1.5,2]"),
    ],
)
def test_the_shared_families(mysql_type: str, value: object, text: str) -> None:
    convert = tidb_text(ColumnInfo("c", mysql_type), UTC)
    assert convert is not None and convert(value) == text


@pytest.mark.parametrize("mysql_type", ["float", "double", "varbinary", "enum", "set"])
def test_the_protocols_own_families_are_left_to_them(mysql_type: str) -> None:
    assert tidb_text(ColumnInfo("c", mysql_type, elements=("a",)), UTC) is None


def test_a_value_of_the_wrong_shape_raises() -> None:
    convert = tidb_text(ColumnInfo("c", "int"), UTC)
    assert convert is not None
    with pytest.raises(TypeError, match="want an integer"):
        convert("7")
