"""The type rules of spec/debezium.md section 2, one test per rule: schema entry and value."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.codec.debezium.support import encoder
from tisink.model import ColumnInfo, IndexInfo, RowChangedEvent, make_table

TEXT = {"charset": "utf8mb4", "collate": "utf8mb4_bin"}
ID = ColumnInfo("id", "int", length=11, nullable=False)


def _encode(column: ColumnInfo, value: Any, **options: Any) -> tuple[dict[str, Any], Any, bytes]:
    """(schema entry, payload value, value bytes) of ``column`` holding ``value``."""
    table = make_table("db", "t", 7, 1, [ID, column], [IndexInfo("primary", ("id",), True, True)])
    message = encoder(**options).encode_row(
        RowChangedEvent(1, 1 << 18, table, after={"id": 1, column.name: value})
    )
    body = json.loads(message.value)
    entry = body["schema"]["fields"][1]["fields"][1]
    return entry, body["payload"]["after"][column.name], message.value


def _col(mysql_type: str, **kw: Any) -> ColumnInfo:
    return ColumnInfo("c", mysql_type, **kw)


@pytest.mark.parametrize(
    ("mysql_type", "unsigned", "connect", "value"),
    [
        ("tinyint", False, "int16", -128),
        ("tinyint", True, "int16", 255),
        ("smallint", False, "int16", -32768),
        ("smallint", True, "int32", 65535),
        ("mediumint", False, "int32", -8388608),
        ("mediumint", True, "int32", 16777215),
        ("int", False, "int32", -2147483648),
        ("int", True, "int64", 4294967295),
        ("bigint", False, "int64", -9223372036854775808),
        ("bigint", True, "int64", 9223372036854775807),
    ],
)
def test_integer_widths(mysql_type: str, unsigned: bool, connect: str, value: int) -> None:
    entry, written, _ = _encode(_col(mysql_type, unsigned=unsigned), value)
    assert entry == {"type": connect, "optional": True, "field": "c"}
    assert written == value


def test_bigint_unsigned_wraps_to_int64_and_max_is_minus_one() -> None:
    column = _col("bigint", unsigned=True)
    assert _encode(column, 1 << 63)[1] == -(1 << 63)
    assert _encode(column, (1 << 64) - 2)[1] == -2
    assert _encode(column, (1 << 64) - 1)[1] == -1


@pytest.mark.parametrize(
    ("mysql_type", "unsigned", "value"),
    [("tinyint", False, 128), ("tinyint", True, 256), ("int", False, -(1 << 31) - 1)],
)
def test_out_of_range_integers_are_minus_one(mysql_type: str, unsigned: bool, value: int) -> None:
    assert _encode(_col(mysql_type, unsigned=unsigned), value)[1] == -1


def test_float_is_32_bit_shortest_and_float_m_d_is_double() -> None:
    entry, _, raw = _encode(_col("float", length=12), 12345.12345)
    assert entry["type"] == "float"
    assert b'"c":12345.123}' in raw
    assert _encode(_col("float", length=7, decimal=2), 1.5)[0]["type"] == "double"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (12345.0, b"12345"),
        (1e-7, b"1e-7"),
        (1.5e-10, b"1.5e-10"),
        (0.000001, b"0.000001"),
        (1e20, b"100000000000000000000"),
        (1e21, b"1e+21"),
        (-0.0, b"-0"),
        (0.1, b"0.1"),
    ],
)
def test_double_text_is_json_iterators(value: float, text: bytes) -> None:
    entry, _, raw = _encode(_col("double", length=22), value)
    assert entry["type"] == "double"
    assert b'"c":' + text + b"}" in raw


def test_decimal_is_a_double_parsed_from_its_text() -> None:
    entry, _, raw = _encode(_col("decimal", length=20, decimal=6), "895927910452.282984")
    assert entry["type"] == "double"
    assert b'"c":895927910452.283}' in raw
    assert b'"c":5}' in _encode(_col("decimal", length=10), "5")[2]


def test_text_and_binary_strings() -> None:
    assert _encode(_col("varchar", length=10, **TEXT), "foo")[:2] == (
        {"type": "string", "optional": True, "field": "c"},
        "foo",
    )
    assert _encode(_col("varbinary", length=10), "Zm9v")[1] == "Zm9v"
    assert _encode(_col("binary", length=5), "Zm9v")[1] == "Zm9vAAA="  # zero-padded to 5 bytes


def test_json_strings_escape_as_json_iterator_without_html_escaping() -> None:
    _, _, raw = _encode(_col("text", **TEXT), '<a&b>\u2028\b\f\x01"\\')
    assert '"c":"<a&b>\u2028\\u0008\\u000c\\u0001\\"\\\\"}'.encode() in raw


@pytest.mark.parametrize(
    ("value", "nullable", "expected"),
    [
        ("2023-11-30", True, 19691),
        ("1000-01-01", True, -354285),
        ("9999-12-31", True, 2932896),
        ("0018-01-01", True, 17532),  # years 0-69 are 20xx
        ("0099-01-01", True, 10592),  # years 70-99 are 19xx
        ("0000-00-00", True, None),
        ("0000-00-00", False, 0),
        ("2023-02-30", True, None),
    ],
)
def test_date_is_days(value: str, nullable: bool, expected: int | None) -> None:
    entry, written, _ = _encode(_col("date", nullable=nullable), value)
    assert entry["name"] == "io.debezium.time.Date" and entry["type"] == "int32"
    assert written == expected


@pytest.mark.parametrize(
    ("fsp", "value", "name", "expected"),
    [
        (0, "2023-11-30 12:34:56", "io.debezium.time.Timestamp", 1701347696000),
        (3, "2023-11-30 12:34:56.123", "io.debezium.time.Timestamp", 1701347696123),
        (4, "2023-11-30 12:34:56.1235", "io.debezium.time.MicroTimestamp", 1701347696123500),
        (6, "1969-12-31 23:59:59.999999", "io.debezium.time.MicroTimestamp", -1),
        (0, "0018-01-01 00:00:00", "io.debezium.time.Timestamp", 1514764800000),
        (6, "0000-00-00 00:00:00", "io.debezium.time.MicroTimestamp", None),
    ],
)
def test_datetime_is_epoch_ms_or_us(fsp: int, value: str, name: str, expected: int) -> None:
    entry, written, _ = _encode(_col("datetime", decimal=fsp), value)
    assert (entry["type"], entry["name"]) == ("int64", name)
    assert written == expected


def test_zero_datetime_not_null_is_zero() -> None:
    assert _encode(_col("datetime", nullable=False), "0000-00-00 00:00:00")[1] == 0


@pytest.mark.parametrize(
    ("fsp", "value", "expected"),
    [
        (0, "2023-11-30 12:34:56", "2023-11-30T12:34:56Z"),
        (1, "2023-11-30 12:34:56.1", "2023-11-30T12:34:56.1Z"),
        (5, "2023-11-30 12:34:56.12346", "2023-11-30T12:34:56.12346Z"),
        (3, "2023-11-30 12:34:56", "2023-11-30T12:34:56.000Z"),
        (0, "0000-00-00 00:00:00", "1970-01-01T00:00:00Z"),
    ],
)
@pytest.mark.parametrize("zone", ["UTC", "Asia/Shanghai"])
def test_timestamp_is_zoned_utc_text_with_fsp_digits(
    fsp: int, value: str, expected: str, zone: str
) -> None:
    """The feed's UTC instant comes out in UTC whatever the changefeed's zone."""
    entry, written, _ = _encode(_col("timestamp", decimal=fsp), value, time_zone=zone)
    assert (entry["type"], entry["name"]) == ("string", "io.debezium.time.ZonedTimestamp")
    assert written == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("12:34:56.123456", 45296123456),
        ("-12:34:56.123456", -45296123456),
        ("838:59:59", 3020399000000),
    ],
)
def test_time_is_signed_microseconds(value: str, expected: int) -> None:
    entry, written, _ = _encode(_col("time", decimal=6), value)
    assert entry["name"] == "io.debezium.time.MicroTime"
    assert written == expected


def test_year() -> None:
    entry, written, _ = _encode(_col("year", length=4, unsigned=True, zerofill=True), 2023)
    assert (entry["type"], entry["name"], written) == ("int32", "io.debezium.time.Year", 2023)


def test_bit_1_is_boolean_and_bit_n_little_endian_bytes() -> None:
    entry, written, _ = _encode(_col("bit", length=1, unsigned=True), 1)
    assert (entry, written) == ({"type": "boolean", "optional": True, "field": "c"}, True)
    entry, written, _ = _encode(_col("bit", length=60, unsigned=True), 16)
    assert entry["parameters"] == {"length": "60"} and entry["name"] == "io.debezium.data.Bits"
    assert written == "EAAAAAAAAAA="
    assert _encode(_col("bit", length=10, unsigned=True), 0x2AA)[1] == "qgI="


def test_enum_and_set() -> None:
    enum = _col("enum", elements=("a,b", "it's", "c"), **TEXT)
    entry, written, _ = _encode(enum, "a,b")
    assert entry["parameters"] == {"allowed": "a\\,b,it's,c"} and written == "a,b"
    assert _encode(enum, "")[1] == ""  # MySQL's error member
    set_ = _col("set", elements=("x", "y", "z"), **TEXT)
    entry, written, _ = _encode(set_, ["z", "x"])
    assert entry["name"] == "io.debezium.data.EnumSet"
    assert written == "x,z"  # member order, not the image's
    assert _encode(set_, [])[1] == ""


def test_json_as_tidb_prints_it_and_vector() -> None:
    entry, written, _ = _encode(_col("json"), {"b": [1, 2.5], "a": "x"})
    assert entry["name"] == "io.debezium.data.Json"
    assert written == '{"a": "x", "b": [1, 2.5]}'
    entry, written, _ = _encode(_col("vector", length=3), [1.0, 0.5, -2.0])
    assert entry == {
        "type": "string",
        "optional": True,
        "name": "io.debezium.data.TiDBVectorFloat32",
        "field": "c",
    }
    assert written == "[1,0.5,-2]"


@pytest.mark.parametrize(
    ("column", "written", "default"),
    [
        (_col("int", default="42"), 42, 42),
        (_col("year", length=4, default="99"), 99, 1999),
        (_col("double", default="1.5"), 1.5, 1.5),
        (_col("decimal", length=10, decimal=2, default="3.50"), 3.5, 3.5),
        (_col("varchar", length=5, default="hi", **TEXT), "hi", "hi"),
        (_col("varbinary", length=5, default="hi"), "aGk=", "hi"),
        (_col("enum", elements=("a", "b"), default="b", **TEXT), "b", "b"),
        (_col("set", elements=("a", "b"), default="b,a", **TEXT), "a,b", "b,a"),
        (_col("date", default="2023-11-30"), 19691, 19691),
        (_col("datetime", decimal=0, default="2023-11-30 12:34:56"), 1701347696000, 1701347696000),
        (_col("datetime", default="CURRENT_TIMESTAMP"), 0, 0),
        (
            _col("timestamp", default="2023-11-30 12:34:56"),
            "2023-11-30T12:34:56Z",
            "2023-11-30T12:34:56Z",
        ),
        (_col("timestamp", default="CURRENT_TIMESTAMP"), None, None),
        (_col("time", decimal=0, default="01:00:00"), 3600000000, 3600000000),
        (_col("bit", length=1, unsigned=True, default=1), True, True),
        (_col("bit", length=10, unsigned=True, default=682), "qgI=", "qgI="),
        (_col("json", default='{"a":1}'), '{"a":1}', '{"a":1}'),
    ],
)
def test_null_is_written_as_the_default_which_the_schema_declares(
    column: ColumnInfo, written: Any, default: Any
) -> None:
    entry, value, _ = _encode(column, None)
    assert value == written
    if default is None:
        assert "default" not in entry
    else:
        assert entry["default"] == default
        assert list(entry)[-2:] == ["field", "default"]


def test_null_without_default_is_null() -> None:
    entry, value, _ = _encode(_col("int"), None)
    assert value is None and "default" not in entry


def test_not_null_current_timestamp_default_is_the_epoch() -> None:
    column = _col("timestamp", nullable=False, default="CURRENT_TIMESTAMP")
    assert _encode(column, "2023-11-30 12:34:56")[0]["default"] == "1970-01-01T00:00:00Z"


def test_timestamp_default_substituted_for_null_is_read_in_the_changefeed_zone() -> None:
    column = _col("timestamp", default="2023-11-30 12:34:56")
    entry, value, _ = _encode(column, None, time_zone="Asia/Shanghai")
    assert value == "2023-11-30T04:34:56Z"
    assert entry["default"] == "2023-11-30T12:34:56Z"


def test_tidb_type_leads_each_entry_with_the_extension() -> None:
    entry, _, _ = _encode(_col("int", unsigned=True), 1, enable_tidb_extension=True)
    assert list(entry) == ["tidb_type", "type", "optional", "field"]
    assert entry["tidb_type"] == "int unsigned"
    decimal = _col("decimal", length=10, unsigned=True)
    assert _encode(decimal, "1", enable_tidb_extension=True)[0]["tidb_type"] == "decimal"
