"""``codec.checksum`` against TiDB's own expectations (README.md names each source)."""

from __future__ import annotations

import struct
import zlib
from typing import Any

import pytest

from tisink.codec import checksum
from tisink.model.table import ColumnInfo, IndexInfo, make_table


def u64(v: int) -> bytes:
    return struct.pack("<Q", v & ((1 << 64) - 1))


def length_value(data: bytes) -> bytes:
    return struct.pack("<I", len(data)) + data


def col(mysql_type: str, **kw: Any) -> ColumnInfo:
    return ColumnInfo("c", mysql_type, **kw)


I8, I16, I32, I64, I24 = -(1 << 7), -(1 << 15), -(1 << 31), -(1 << 63), -(1 << 23)
INTEGER_CASES = [
    (t, v)
    for t, low, high, uhigh in (
        ("tinyint", I8, 127, 255),
        ("smallint", I16, (1 << 15) - 1, (1 << 16) - 1),
        ("int", I32, (1 << 31) - 1, (1 << 32) - 1),
        ("bigint", I64, (1 << 63) - 1, (1 << 64) - 1),
        ("mediumint", I24, (1 << 23) - 1, (1 << 24) - 1),
    )
    for v in (0, 42, -2, low, high, uhigh)
]
STRING_TYPES = ["varchar", "char", "text", "longtext", "mediumtext", "tinytext"]
BINARY_TYPES = ["varbinary", "binary", "blob", "longblob", "mediumblob", "tinyblob"]

CASES: list[tuple[ColumnInfo, Any, bytes]] = [
    *((col(t, unsigned=v > 0 and v.bit_length() % 8 == 0), v, u64(v)) for t, v in INTEGER_CASES),
    (col("year", unsigned=True), 2023, u64(2023)),
    *((col(t, charset="utf8mb4"), "foo", length_value(b"foo")) for t in STRING_TYPES),
    *((col(t, charset="utf8mb4"), "", length_value(b"")) for t in STRING_TYPES),
    *((col(t), "Zm9v", length_value(b"foo")) for t in BINARY_TYPES if t != "binary"),
    *((col(t), "", length_value(b"")) for t in BINARY_TYPES if t != "binary"),
    (col("float"), 3.14, u64(struct.unpack("<Q", struct.pack("<d", 3.140000104904175))[0])),
    (col("double"), 3.14, struct.pack("<d", 3.14)),
    (col("float"), float("nan"), u64(0)),
    (col("float"), float("inf"), u64(0)),
    (col("double"), float("-inf"), u64(0)),
    (col("enum", elements=("a", "b", "c")), "b", u64(0b010)),
    (col("set", elements=("a", "b", "c")), ["a", "c"], u64(0b101)),
    (col("bit", length=16), 0x1234, u64(0x1234)),
    (col("decimal", length=10, decimal=3), "0.000", length_value(b"0.000")),
    (col("decimal", length=10, decimal=2), "3.14", length_value(b"3.14")),
    (col("decimal", length=10, decimal=1), "-1.2", length_value(b"-1.2")),
    (col("decimal", length=12, decimal=6), "-999999.999999", length_value(b"-999999.999999")),
    (col("decimal", length=12, decimal=6), "999999.999999", length_value(b"999999.999999")),
    (col("json"), None, b""),
    (col("json"), 42, length_value(b"42")),
    (col("json"), {"foo": "bar", "a": 42}, length_value(b'{"a": 42, "foo": "bar"}')),
    (col("time", decimal=6), "08:07:00.123456", length_value(b"08:07:00.123456")),
    (col("time"), "00:00:00", length_value(b"00:00:00")),
    (col("time", decimal=3), "838:59:59", length_value(b"838:59:59.000")),
    (
        col("datetime", decimal=6),
        "2023-01-02 03:04:05.000678",
        length_value(b"2023-01-02 03:04:05.000678"),
    ),
    (col("datetime"), "0000-00-00 00:00:00", length_value(b"0000-00-00 00:00:00")),
    (col("date"), "2023-01-02", length_value(b"2023-01-02")),
    (
        col("timestamp", decimal=3),
        "2023-01-02 03:04:05.678",
        length_value(b"2023-01-02 03:04:05.678"),
    ),
]


@pytest.mark.parametrize(("column", "value", "expected"), CASES, ids=lambda x: repr(x)[:40])
def test_column_encode_is_tidbs(column: ColumnInfo, value: Any, expected: bytes) -> None:
    assert checksum.encode_column(column, value) == expected


@pytest.mark.parametrize("mysql_type", sorted({c.mysql_type for c, _, _ in CASES}))
def test_null_adds_nothing(mysql_type: str) -> None:
    assert checksum.encode_column(col(mysql_type), None) == b""


def _table() -> Any:
    return make_table(
        "s",
        "t",
        10,
        1,
        [
            ColumnInfo("n", "int", id=1),
            ColumnInfo("a", "int", id=2, nullable=False),
            ColumnInfo("b", "varchar", id=3, charset="utf8mb4"),
            ColumnInfo("c", "timestamp", id=4, decimal=6),
        ],
        [IndexInfo("primary", ("a",), unique=True, primary=True)],
    )


ROW = {"n": None, "a": 42, "b": "foobar", "c": "2024-05-06 07:08:09.123456"}


def test_row_checksum_is_crc32_of_the_encoded_row() -> None:
    table = _table()
    raw = checksum.encode_row(table, ROW)
    assert raw == u64(42) + length_value(b"foobar") + length_value(b"2024-05-06 07:08:09.123456")
    assert checksum.column_checksum(table, ROW) == zlib.crc32(raw)
    assert checksum.column_checksum(table, dict.fromkeys(ROW)) == 0  # NULLs only: as empty


def test_column_order_does_not_matter() -> None:
    table = _table()
    shuffled = make_table("s", "t", 10, 1, [table.columns[i] for i in (2, 0, 3, 1)])
    assert checksum.column_checksum(shuffled, ROW) == checksum.column_checksum(table, ROW)


def test_row_value_encodings_are_tidbs() -> None:
    assert checksum.packed_time("2011-11-10 11:11:11.999999") == 1840446893366133311
    assert checksum.duration_nanos("4:00:00") == 14400000000000
    assert checksum.duration_nanos("-4:00:00.5") == -14400500000000


def test_decimal_bin_is_tidbs() -> None:
    assert checksum.decimal_bin("1234567890.1234", 14, 4).hex(" ") == "81 0d fb 38 d2 04 d2"
    assert checksum.decimal_bin("-1234567890.1234", 14, 4).hex(" ") == "7e f2 04 c7 2d fb 2d"
    one = checksum.decimal_bin("1.1", 2, 1)
    assert checksum.decimal_bin("0001.1", 2, 1) == one == checksum.decimal_bin("01.1", 2, 1)


def test_raw_checksum_of_an_empty_row() -> None:
    table = make_table(
        "s",
        "t",
        10,
        1,
        [ColumnInfo("id", "bigint", id=1, nullable=False)],
        [IndexInfo("primary", ("id",), unique=True, primary=True)],
    )
    image = {"id": 1}  # the int handle is kept out of the row value: an empty row
    value = checksum.row_value(table, image)
    assert value == bytes((128, 0x02, 0, 0, 0, 0, 2))  # CodecVer, checksum flag, 0, 0; header
    handle = checksum.int_handle_bytes(1)
    assert handle == bytes.fromhex("8000000000000001")
    raw = checksum.raw_checksum(table, image)
    assert raw == zlib.crc32(handle, zlib.crc32(value)) != 0
    key = checksum.row_key(10, 1)
    assert key == b"t" + bytes.fromhex("800000000000000a") + b"_r" + handle
    assert checksum.raw_checksum(table, image, version=1) == zlib.crc32(
        key, zlib.crc32(bytes((128, 0x02, 0, 0, 0, 0, 1)))
    )


def test_the_row_value_layout() -> None:
    """Not-null ids sorted, then null ids sorted; u16 end offsets; the data."""
    table = _table()
    value = checksum.row_value(table, ROW)
    c_bytes = checksum.value_bytes(table.columns[3], ROW["c"])
    assert c_bytes == struct.pack("<Q", checksum.packed_time(ROW["c"]))
    expected = (
        bytes((128, 0x02))
        + struct.pack("<HH", 2, 1)
        + bytes((3, 4, 1))
        + struct.pack("<HH", 6, 6 + len(c_bytes))
        + b"foobar"
        + c_bytes
        + bytes((2,))
    )
    assert value == expected
    large = make_table("s", "t", 10, 1, [ColumnInfo("x", "int", id=300), *table.columns])
    assert checksum.row_value(large, {**ROW, "x": 1})[1] == 0x03  # large: 4-byte ids


def test_float_key_is_memcomparable() -> None:
    keys = [checksum.float_key(v) for v in (-2.5, -0.0, 0.0, 1.0, 3.5)]
    assert keys == sorted(keys)
    assert checksum.float_key(1.0) == bytes.fromhex("bff0000000000000")
