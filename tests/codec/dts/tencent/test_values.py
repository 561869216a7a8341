"""Every TiDB column type as ``Data``: the seed's DataType table plus the cases this codec
decides (``codec/dts/tencent/values.py``), read back with the generated classes."""

from __future__ import annotations

import datetime
from types import ModuleType
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.codec.dts.tencent.support import new_encoder, ts_at
from tisink.codec.dts.tencent.values import data_kind
from tisink.codec.errors import CodecError
from tisink.codec.values import zone_for
from tisink.model.events import RowChangedEvent
from tisink.model.table import ColumnInfo, make_table

U8 = "utf8mb4"
CASES: list[tuple[ColumnInfo, Any, str, str, str | bytes]] = [
    # column, feed value, DataType, charset, sv (str) or bv (bytes)
    (ColumnInfo("c", "tinyint"), -128, "INT8", "", "-128"),
    (ColumnInfo("c", "tinyint", unsigned=True), 255, "UINT8", "", "255"),
    (ColumnInfo("c", "smallint"), -32768, "INT16", "", "-32768"),
    (ColumnInfo("c", "smallint", unsigned=True), 65535, "UINT16", "", "65535"),
    (ColumnInfo("c", "mediumint"), -8388608, "INT32", "", "-8388608"),
    (ColumnInfo("c", "mediumint", unsigned=True), 16777215, "UINT32", "", "16777215"),
    (ColumnInfo("c", "int"), -2147483648, "INT32", "", "-2147483648"),
    (ColumnInfo("c", "int", unsigned=True), 4294967295, "UINT32", "", "4294967295"),
    (ColumnInfo("c", "bigint"), -(2**63), "INT64", "", str(-(2**63))),
    (ColumnInfo("c", "bigint", unsigned=True), 2**64 - 1, "UINT64", "", str(2**64 - 1)),
    (ColumnInfo("c", "bit", length=64), 2**64 - 1, "INT64", "", str(2**64 - 1)),
    (ColumnInfo("c", "bit", length=3), 5, "INT64", "", "5"),
    (ColumnInfo("c", "year", unsigned=True), 2024, "INT64", "", "2024"),
    (ColumnInfo("c", "float"), 3.14, "FLOAT32", "", "3.14"),
    (ColumnInfo("c", "double"), 0.1, "FLOAT64", "", "0.1"),
    (ColumnInfo("c", "double"), 1e21, "FLOAT64", "", "1000000000000000000000"),
    (ColumnInfo("c", "decimal", length=10, decimal=2), "-12.50", "DECIMAL", "", "-12.50"),
    (ColumnInfo("c", "char", charset=U8, length=3), "ab", "STRING", U8, b"ab"),
    (ColumnInfo("c", "varchar", charset=U8, length=9), "日本", "STRING", U8, "日本".encode()),
    (
        ColumnInfo("c", "varchar", charset="gbk", length=9),
        "日本",
        "STRING",
        "gbk",
        "日本".encode("gbk"),
    ),
    (
        ColumnInfo("c", "varchar", charset="latin1", length=9),
        "café",
        "STRING",
        "latin1",
        b"caf\xe9",
    ),
    (ColumnInfo("c", "text", charset=U8), "long text", "STRING", U8, b"long text"),
    (ColumnInfo("c", "longtext", charset=U8), "", "STRING", U8, b""),
    (ColumnInfo("c", "enum", charset=U8, elements=("a", "b")), "b", "STRING", U8, b"b"),
    (ColumnInfo("c", "set", charset=U8, elements=("a", "b")), ["a", "b"], "STRING", U8, b"a,b"),
    (ColumnInfo("c", "set", charset=U8, elements=("a", "b")), [], "STRING", U8, b""),
    (ColumnInfo("c", "binary", length=4), "AQI=", "BYTES", "", b"\x01\x02\x00\x00"),
    (ColumnInfo("c", "varbinary", length=4), "AQI=", "BYTES", "", b"\x01\x02"),
    (ColumnInfo("c", "blob"), "AAH/", "BYTES", "", b"\x00\x01\xff"),
    (ColumnInfo("c", "longblob"), "", "BYTES", "", b""),
    (ColumnInfo("c", "date"), "2024-02-29", "STRING", "", b"2024-02-29"),
    (ColumnInfo("c", "datetime"), "2024-01-31 12:34:56", "STRING", "", b"2024-01-31 12:34:56"),
    (
        ColumnInfo("c", "datetime", decimal=3),
        "2024-01-31 12:34:56.5",
        "STRING",
        "",
        b"2024-01-31 12:34:56.500",
    ),
    (
        ColumnInfo("c", "datetime", decimal=6),
        "2024-01-31 12:34:56.000123",
        "STRING",
        "",
        b"2024-01-31 12:34:56.000123",
    ),
    (
        ColumnInfo("c", "datetime", decimal=2),
        "2024-01-31 12:34:56",
        "STRING",
        "",
        b"2024-01-31 12:34:56.00",
    ),
    (ColumnInfo("c", "time"), "-838:59:59", "STRING", "", b"-838:59:59"),
    (ColumnInfo("c", "time", decimal=1), "12:00:00.25", "STRING", "", b"12:00:00.2"),
    (
        ColumnInfo("c", "timestamp"),
        "2021-05-17 07:22:42",
        "STRING",
        "",
        b"2021-05-17 07:22:42 +00:00",
    ),
    (
        ColumnInfo("c", "timestamp", decimal=6),
        "2021-05-17 07:22:42.123456",
        "STRING",
        "",
        b"2021-05-17 07:22:42.123456 +00:00",
    ),
    (
        ColumnInfo("c", "timestamp"),
        "0000-00-00 00:00:00",
        "STRING",
        "",
        b"0000-00-00 00:00:00 +00:00",
    ),
    (
        ColumnInfo("c", "json"),
        {"b": [1, 2.5, None], "a": "x"},
        "BYTES",
        "",
        b'{"a": "x", "b": [1, 2.5, null]}',
    ),
    (ColumnInfo("c", "json"), "text", "BYTES", "", b'"text"'),
    (ColumnInfo("c", "vector"), [1.0, 2.5], "BYTES", "", b"[1,2.5]"),
]


def encode_one(pb: ModuleType, column: ColumnInfo, value: Any, time_zone: str = "UTC") -> Any:
    table = make_table("db", "all_types", 1, 1, [column])
    ts = ts_at()
    encoded = new_encoder(time_zone=time_zone).encode_rows(
        [RowChangedEvent(ts - 1, ts, table, None, {"c": value})]
    )
    envelope = pb.Envelope.FromString(encoded.records[0][1])
    dml = pb.Entries.FromString(envelope.data).items[1]
    return dml.event.dmlEvent.rows[0].newColumns[0]


@pytest.mark.parametrize(
    ("column", "value", "data_type", "charset", "expected"),
    CASES,
    ids=[f"{c.mysql_type}-{i}" for i, (c, *_rest) in enumerate(CASES)],
)
def test_value(
    pb: ModuleType,
    column: ColumnInfo,
    value: Any,
    data_type: str,
    charset: str,
    expected: str | bytes,
) -> None:
    data = encode_one(pb, column, value)
    assert pb.DataType.Name(data.dataType) == data_type
    assert data.charset == charset
    if isinstance(expected, str):
        assert (data.sv, data.bv) == (expected, b"")
    else:
        assert (data.sv, data.bv) == ("", expected)


def test_timestamp_offset_follows_daylight_saving(pb: ModuleType) -> None:
    column = ColumnInfo("c", "timestamp")
    winter = encode_one(pb, column, "2024-01-15 12:00:00", "America/New_York")
    summer = encode_one(pb, column, "2024-07-15 12:00:00", "America/New_York")
    assert winter.bv == b"2024-01-15 07:00:00 -05:00"
    assert summer.bv == b"2024-07-15 08:00:00 -04:00"


def test_unencodable_text_names_table_and_column(pb: ModuleType) -> None:
    column = ColumnInfo("c", "varchar", charset="latin1", length=3)
    with pytest.raises(CodecError, match=r"table db\.all_types: column 'c'.*UnicodeEncodeError"):
        encode_one(pb, column, "日本")


@settings(deadline=None)
@given(
    moment=st.datetimes(
        min_value=datetime.datetime(1971, 1, 1), max_value=datetime.datetime(2037, 12, 31)
    ),
    zone=st.sampled_from(["America/New_York", "Asia/Shanghai", "Australia/Lord_Howe", "UTC"]),
)
def test_zoned_text_matches_astimezone(moment: datetime.datetime, zone: str) -> None:
    """The per-minute offset cache renders exactly what ``astimezone`` gives."""
    column = ColumnInfo("c", "timestamp", decimal=6)
    render = data_kind(column, zone_for(zone)[1])[2]
    text = moment.isoformat(" ", timespec="microseconds")
    local = moment.replace(tzinfo=datetime.UTC).astimezone(ZoneInfo(zone))
    offset = local.strftime("%z")
    expected = f"{local:%Y-%m-%d %H:%M:%S.%f} {offset[:3]}:{offset[3:]}"
    assert render(text).decode() == expected
    assert render(text).decode() == expected  # again, from the cache
