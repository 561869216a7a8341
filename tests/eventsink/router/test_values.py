"""The bytes hashed per column value: TiCDC's ColumnValueString from the feed value form."""

from __future__ import annotations

import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from tisink.eventsink.router import DispatchError
from tisink.eventsink.router.values import value_bytes_for
from tisink.model.table import ColumnInfo, make_table


def hashed(column: ColumnInfo, value: Any, zone: datetime.tzinfo = datetime.UTC) -> bytes:
    table = make_table("s", "t", 1, 1, [column])
    return value_bytes_for(table, table.columns[0], zone)(value)


@pytest.mark.parametrize(
    ("decimal", "value", "zone", "expected"),
    [
        (6, "2024-01-02 03:04:05.123456", "Asia/Shanghai", b"2024-01-02 11:04:05.123456"),
        (0, "2024-01-01 20:00:00", "America/New_York", b"2024-01-01 15:00:00"),
        (3, "2024-07-01 20:00:00.5", "America/New_York", b"2024-07-01 16:00:00.500"),
        (0, "0000-00-00 00:00:00", "Asia/Shanghai", b"0000-00-00 00:00:00"),
    ],
)
def test_timestamps_are_hashed_in_the_sink_time_zone(decimal, value, zone, expected):
    column = ColumnInfo("c", "timestamp", decimal=decimal)
    assert hashed(column, value, ZoneInfo(zone)) == expected


@pytest.mark.parametrize(
    ("column", "value", "expected"),
    [
        (ColumnInfo("c", "int"), 42, b"42"),
        (ColumnInfo("c", "tinyint"), -7, b"-7"),
        (ColumnInfo("c", "bigint", unsigned=True), 18446744073709551615, b"18446744073709551615"),
        (ColumnInfo("c", "year"), 2024, b"2024"),
        (ColumnInfo("c", "bit", length=8), 5, b"5"),
        (ColumnInfo("c", "float"), 0.1, b"0.1"),
        (ColumnInfo("c", "float"), 1 / 3, b"0.33333334"),
        (ColumnInfo("c", "float"), 16777217, b"16777216"),
        (ColumnInfo("c", "float"), float("nan"), b"0"),
        (ColumnInfo("c", "float"), 1e39, b"0"),  # +Inf once narrowed to float32
        (ColumnInfo("c", "double"), 1 / 3, b"0.3333333333333333"),
        (ColumnInfo("c", "double"), 1e21, b"1000000000000000000000"),
        (ColumnInfo("c", "double"), 2.5e-7, b"0.00000025"),
        (ColumnInfo("c", "double"), -0.0, b"-0"),
        (ColumnInfo("c", "double"), 3, b"3"),
        (ColumnInfo("c", "double"), float("-inf"), b"0"),
        (ColumnInfo("c", "decimal", length=10, decimal=2), "3.5", b"3.50"),
        (ColumnInfo("c", "decimal", length=10, decimal=2), "-3.50", b"-3.50"),
        (ColumnInfo("c", "decimal", length=10), "12", b"12"),
        (ColumnInfo("c", "varchar", charset="utf8mb4"), "héllo", "héllo".encode()),
        (ColumnInfo("c", "text", charset="utf8mb4"), "", b""),
        (ColumnInfo("c", "varbinary", length=8), "AAEC", b"\x00\x01\x02"),
        (ColumnInfo("c", "blob"), "/w==", b"\xff"),
        (ColumnInfo("c", "binary", length=5), "AQI=", b"\x01\x02\x00\x00\x00"),
        (ColumnInfo("c", "date"), "2024-02-29", b"2024-02-29"),
        (ColumnInfo("c", "datetime"), "2024-01-02 03:04:05", b"2024-01-02 03:04:05"),
        (
            ColumnInfo("c", "datetime", decimal=3),
            "2024-01-02 03:04:05.1",
            b"2024-01-02 03:04:05.100",
        ),
        (ColumnInfo("c", "datetime", decimal=3), "2024-01-02 03:04:05", b"2024-01-02 03:04:05.000"),
        (
            ColumnInfo("c", "timestamp", decimal=6),
            "2024-01-02 03:04:05.123456",
            b"2024-01-02 03:04:05.123456",
        ),
        (ColumnInfo("c", "time", decimal=2), "-838:59:59", b"-838:59:59.00"),
        (ColumnInfo("c", "enum", elements=("a", "b", "c")), "b", b"2"),
        (ColumnInfo("c", "enum", elements=("a", "b", "c")), "C", b"3"),
        (ColumnInfo("c", "enum", elements=("a", "b", "c")), "", b"0"),
        (ColumnInfo("c", "enum", elements=("a", "b", "c")), 1, b"1"),
        (ColumnInfo("c", "set", elements=("a", "b", "c")), ["a", "c"], b"5"),
        (ColumnInfo("c", "set", elements=("a", "b", "c")), [], b"0"),
        (ColumnInfo("c", "set", elements=("a", "b", "c")), "a,b", b"3"),
        (ColumnInfo("c", "json"), {"b": 1, "a": [1, 2.5, "x"]}, b'{"a": [1, 2.5, "x"], "b": 1}'),
        (ColumnInfo("c", "vector"), [1, 0.1, -2.5], b"[1,0.1,-2.5]"),
    ],
)
def test_value_strings(column: ColumnInfo, value: Any, expected: bytes):
    assert hashed(column, value) == expected


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        (ColumnInfo("e", "enum", elements=("a",)), "zz", "'zz' is not a member of the enum"),
        (ColumnInfo("e", "set", elements=("a",)), ["a", "q"], "'q' is not a member of the set"),
        (ColumnInfo("e", "varbinary"), "not base64!", "is not base64"),
        (ColumnInfo("e", "timestamp"), "yesterday", "bad timestamp value 'yesterday'"),
    ],
)
def test_bad_values_name_table_and_column(column: ColumnInfo, value: Any, message: str):
    with pytest.raises(DispatchError, match=message) as caught:
        hashed(column, value, ZoneInfo("Europe/Berlin"))
    assert "table s.t column 'e'" in str(caught.value)
