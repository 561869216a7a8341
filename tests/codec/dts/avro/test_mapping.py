"""The shared MySQL type -> DTS value mapping on the worked examples of spec/dts-formats.md
3.3 and 4.3, the seed's type table (seeds/003), and its edge values."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from tests.codec.dts.avro.support import decode, encoder
from tisink.codec.dts import mysql_codes
from tisink.codec.dts.avro.mapping import ValueType, value_mapping
from tisink.codec.errors import CodecError
from tisink.model.events import RowChangedEvent
from tisink.model.table import ColumnInfo, make_table

TEXT = {"charset": "utf8mb4", "collate": "utf8mb4_bin"}


def _seg(**given: int) -> dict[str, int | None]:
    """A DateTime record: the given segments set, the others null."""
    segments = ("year", "month", "day", "hour", "minute", "second", "millis")
    return dict.fromkeys(segments) | given


def _item(column: ColumnInfo, value: Any, fmt: str = "alibaba") -> dict[str, Any] | None:
    """The decoded image item of one value, through a whole encoded record."""
    table = make_table("db", "t", 1, 1, [column])
    rows = [RowChangedEvent(1, 2, table, after={column.name: value})]
    record = decode(fmt, encoder(fmt).encode_rows(rows).records[1][1])
    images = record["afterImages" if fmt == "alibaba" else "newColumns"]
    assert len(images) == 1
    return images[0]


@pytest.mark.parametrize(
    ("column", "value", "expected"),
    [
        (ColumnInfo("i", "int"), 42, {"precision": 11, "value": "42"}),
        (
            ColumnInfo("u", "bigint", unsigned=True),
            (1 << 64) - 1,
            {"precision": 20, "value": "18446744073709551615"},
        ),
        (ColumnInfo("m", "mediumint", length=7), -8388608, {"precision": 7, "value": "-8388608"}),
        (ColumnInfo("b", "bit", length=10), 0x2AA, {"precision": 10, "value": "682"}),
        (
            ColumnInfo("name", "varchar", length=20, **TEXT),
            "héllo",
            {"charset": "utf8mb4", "value": b"h\xc3\xa9llo"},
        ),
        (
            ColumnInfo("amt", "decimal", length=10, decimal=2),
            "12.50",
            {"value": "12.50", "precision": 10, "scale": 2},
        ),
        (ColumnInfo("f", "double"), 1.5, {"value": 1.5, "precision": 22, "scale": 0}),
        (ColumnInfo("g", "float"), 1.1, {"value": 1.1, "precision": 12, "scale": 0}),
        (
            ColumnInfo("ts", "timestamp", decimal=6),
            "2023-11-14 22:13:20.123456",
            {"timestamp": 1700000000, "millis": 123456},
        ),
        (ColumnInfo("z", "timestamp"), "0000-00-00 00:00:00", {"timestamp": 0, "millis": 0}),
        (
            ColumnInfo("d", "date"),
            "2024-01-31",
            _seg(year=2024, month=1, day=31),
        ),
        (
            ColumnInfo("tm", "time"),
            "-838:59:59",
            _seg(hour=-838, minute=-59, second=-59),
        ),
        (
            ColumnInfo("dt", "datetime", decimal=6),
            "2024-01-31 12:34:56.000123",
            _seg(year=2024, month=1, day=31, hour=12, minute=34, second=56, millis=123),
        ),
        (
            ColumnInfo("dt3", "datetime", decimal=3),
            "2024-01-31 12:34:56.5",
            _seg(year=2024, month=1, day=31, hour=12, minute=34, second=56, millis=500000),
        ),
        (ColumnInfo("y", "year"), 2024, _seg(year=2024)),
        (ColumnInfo("blob", "blob"), "AAH/", {"type": "BLOB", "value": b"\x00\x01\xff"}),
        (ColumnInfo("bin", "binary", length=4), "AAH/", {"type": "BINARY", "value": b"\0\1\xff\0"}),
        (ColumnInfo("j", "json"), {"k": 1}, {"type": "JSON", "value": '{"k": 1}'}),
        (
            ColumnInfo("e", "enum", elements=("new", "paid"), **TEXT),
            "paid",
            {"type": "ENUM", "value": "paid"},
        ),
        (
            ColumnInfo("s", "set", elements=("a", "b", "c"), **TEXT),
            ["c", "a"],
            {"type": "SET", "value": "a,c"},
        ),
        (ColumnInfo("v", "vector"), [1.5, 2], {"type": "VECTOR", "value": "[1.5,2]"}),
        (ColumnInfo("n", "int"), None, None),
    ],
)
@pytest.mark.parametrize("fmt", ["alibaba", "tencent"])
def test_examples(fmt: str, column: ColumnInfo, value: Any, expected: Any) -> None:
    assert _item(column, value, fmt) == expected


@pytest.mark.parametrize(
    ("mysql_type", "value_type"),
    [
        ("tinyint", ValueType.INTEGER),
        ("bit", ValueType.INTEGER),
        ("year", ValueType.DATETIME),
        ("float", ValueType.FLOAT),
        ("double", ValueType.FLOAT),
        ("decimal", ValueType.DECIMAL),
        ("char", ValueType.CHARACTER),
        ("varchar", ValueType.CHARACTER),
        ("longtext", ValueType.CHARACTER),
        ("binary", ValueType.BINARY_OBJECT),
        ("varbinary", ValueType.BINARY_OBJECT),
        ("mediumblob", ValueType.BINARY_OBJECT),
        ("timestamp", ValueType.TIMESTAMP),
        ("date", ValueType.DATETIME),
        ("time", ValueType.DATETIME),
        ("datetime", ValueType.DATETIME),
        ("enum", ValueType.TEXT_OBJECT),
        ("set", ValueType.TEXT_OBJECT),
        ("json", ValueType.TEXT_OBJECT),
    ],
)
def test_type_table(mysql_type: str, value_type: ValueType) -> None:
    """The seed's MySQL type -> Avro type table, with the shared MySQL type codes."""
    column = ColumnInfo("c", mysql_type, elements=("a",), length=1)
    mapping = value_mapping(column)
    assert mapping.value_type is value_type
    assert mapping.type_code == mysql_codes.TYPE_CODES[mysql_type]


def test_datetime_without_fraction_leaves_millis_null() -> None:
    item = _item(ColumnInfo("dt", "datetime"), "2024-01-31 12:34:56")
    assert item is not None and item["second"] == 56 and item["millis"] is None
    item = _item(ColumnInfo("dt", "datetime", decimal=2), "2024-01-31 12:34:56")
    assert item is not None and item["millis"] == 0


def test_charset_bytes_follow_the_column_charset() -> None:
    column = ColumnInfo("g", "varchar", charset="gbk", collate="gbk_bin", length=10)
    assert _item(column, "中文") == {"charset": "gbk", "value": "中文".encode("gbk")}


@pytest.mark.parametrize(
    ("column", "value", "needle"),
    [
        (ColumnInfo("e", "enum", elements=("a",), **TEXT), "zz", "'e'"),
        (ColumnInfo("s", "set", elements=("a",), **TEXT), ["b"], "'s'"),
        (ColumnInfo("i", "int"), "12", "'i'"),
        (ColumnInfo("i", "int"), True, "'i'"),
        (ColumnInfo("d", "date"), "2024/01/31", "'d'"),
        (ColumnInfo("t", "time"), "12:3", "'t'"),
        (ColumnInfo("ts", "timestamp"), "2024-01-31T00:00:00", "'ts'"),
        (ColumnInfo("b", "blob"), "***", "'b'"),
        (ColumnInfo("a", "varchar", charset="ascii", length=3), "é", "'a'"),
    ],
)
def test_bad_values_name_table_and_column(column: ColumnInfo, value: Any, needle: str) -> None:
    table = make_table("db", "orders", 1, 1, [column])
    rows = [RowChangedEvent(1, 2, table, after={column.name: value})]
    with pytest.raises(CodecError, match=needle) as caught:
        encoder("alibaba").encode_rows(rows)
    assert "db.orders" in str(caught.value)


def test_missing_column_is_named() -> None:
    table = make_table("db", "t", 1, 1, [ColumnInfo("a", "int"), ColumnInfo("b", "int")])
    rows = [RowChangedEvent(1, 2, table, after={"a": 1})]
    with pytest.raises(CodecError, match="lacks column 'b'"):
        encoder("tencent").encode_rows(rows)


def test_binary_value_is_base64_of_the_feed() -> None:
    raw = bytes(range(256))
    item = _item(ColumnInfo("b", "longblob"), base64.b64encode(raw).decode())
    assert item == {"type": "BLOB", "value": raw}
