"""Memcomparable keys (``codec.values.memcomparable``) against TiDB's tests and doc comments
(README.md names each source), and the raw-bytes checksum of rows keyed by a clustered common
handle or a _tidb_rowid."""

from __future__ import annotations

import math
import struct
import zlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.codec import checksum
from tisink.codec.errors import CodecError
from tisink.codec.values import memcomparable as mc
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table


def _sign(a: bytes, b: bytes) -> int:
    return (a > b) - (a < b)


# --- codec ------------------------------------------------------------------------------------


def test_encode_bytes_doc_comment() -> None:
    """bytes.go ``EncodeBytes``' doc comment."""
    assert list(mc.encode_bytes(b"")) == [0, 0, 0, 0, 0, 0, 0, 0, 247]
    assert list(mc.encode_bytes(bytes([1, 2, 3]))) == [1, 2, 3, 0, 0, 0, 0, 0, 250]
    assert list(mc.encode_bytes(bytes([1, 2, 3, 0]))) == [1, 2, 3, 0, 0, 0, 0, 0, 251]
    assert list(mc.encode_bytes(bytes(range(1, 9)))) == [
        *range(1, 9),
        255,
        *[0] * 8,
        247,
    ]


BYTES_ORDER = [  # codec_test.go TestBytes' tblCmp
    (b"", b"\x00", -1),
    (b"\x00", b"\x00", 0),
    (b"\xff", b"\x00", 1),
    (b"\xff", b"\xff\x00", -1),
    (b"a", b"b", -1),
    (b"a", b"\x00", 1),
    (b"\x00", b"\x01", -1),
    (b"\x00\x01", b"\x00\x00", 1),
    (b"\x00\x00\x00", b"\x00\x00", 1),
    (bytes(8), bytes(9), -1),
    (b"\x01\x02\x03\x00", b"\x01\x02\x03", 1),
    (b"\x01\x03\x03\x04", b"\x01\x03\x03\x05", -1),
    (bytes(range(1, 8)), bytes(range(1, 9)), -1),
    (bytes(range(1, 10)), bytes(range(1, 9)), 1),
    (bytes(range(1, 9)) + b"\x00", bytes(range(1, 9)), 1),
]


@pytest.mark.parametrize(("left", "right", "order"), BYTES_ORDER)
def test_bytes_order(left: bytes, right: bytes, order: int) -> None:
    assert _sign(mc.encode_bytes(left), mc.encode_bytes(right)) == order


I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1
INT_ORDER = [  # codec_test.go TestNumberOrder
    (-1, 1, -1),
    (I64_MAX, I64_MIN, 1),
    (I64_MAX, (1 << 31) - 1, 1),
    (-(1 << 31), (1 << 15) - 1, -1),
    (I64_MIN, 127, -1),
    (0, 127, -1),
    (-128, 0, -1),
    (-(1 << 15), (1 << 15) - 1, -1),
    (1, -1, 1),
    (1, 0, 1),
    (-1, 0, -1),
    (0, 0, 0),
    ((1 << 15) - 1, (1 << 15) - 1, 0),
]
UINT_ORDER = [
    (0, 0, 0),
    (1, 0, 1),
    (0, 1, -1),
    (127, (1 << 15) - 1, -1),
    ((1 << 32) - 1, (1 << 31) - 1, 1),
    (255, 127, 1),
    ((1 << 16) - 1, (1 << 31) - 1, -1),
    ((1 << 64) - 1, I64_MAX, 1),
    (I64_MAX, (1 << 32) - 1, 1),
    ((1 << 64) - 1, 0, 1),
    (0, (1 << 64) - 1, -1),
]
FLOAT_ORDER = [  # codec_test.go TestFloatCodec's tblCmp
    (1.0, -1.0, 1),
    (1.0, 0.0, 1),
    (0.0, -1.0, 1),
    (0.0, 0.0, 0),
    (1.7976931348623157e308, 1.0, 1),
    (3.4028234663852886e38, 1.7976931348623157e308, -1),
    (1.7976931348623157e308, 0.0, 1),
    (1.7976931348623157e308, 5e-324, 1),
    (-math.inf, 0.0, -1),
    (math.inf, 0.0, 1),
    (-math.inf, math.inf, -1),
]


def test_number_order() -> None:
    for a, b, order in INT_ORDER:
        assert _sign(mc.encode_int(a), mc.encode_int(b)) == order, (a, b)
    for a, b, order in UINT_ORDER:
        assert _sign(mc.encode_uint(a), mc.encode_uint(b)) == order, (a, b)
    for x, y, order in FLOAT_ORDER:
        assert _sign(mc.encode_float(x), mc.encode_float(y)) == order, (x, y)
    assert mc.encode_int(1) == bytes.fromhex("8000000000000001")
    assert mc.encode_int(-1) == bytes.fromhex("7fffffffffffffff")


def _key(*parts: tuple[int, Any]) -> bytes:
    out = b""
    for flag, v in parts:
        body = {
            mc.INT_FLAG: mc.encode_int,
            mc.FLOAT_FLAG: mc.encode_float,
            mc.BYTES_FLAG: mc.encode_bytes,
        }[flag](v)
        out += bytes((flag,)) + body
    return out


def test_codec_key_compare() -> None:
    """codec_test.go TestCodecKeyCompare, the rows of ints, floats and strings."""
    i, f, s = mc.INT_FLAG, mc.FLOAT_FLAG, mc.BYTES_FLAG
    cases = [
        ([(i, 1)], [(i, 1)], 0),
        ([(i, -1)], [(i, 1)], -1),
        ([(f, 3.15)], [(f, 3.12)], 1),
        ([(s, b"abc")], [(s, b"abcd")], -1),
        ([(s, b"abcdefgh")], [(s, b"abcdefghi")], -1),
        ([(i, 1), (s, b"abc")], [(i, 1), (s, b"abcd")], -1),
        ([(i, 1), (s, b"abc"), (s, b"def")], [(i, 1), (s, b"abcd"), (s, b"af")], -1),
        ([(f, 3.12), (s, b"ebc"), (s, b"def")], [(f, 2.12), (s, b"abcd"), (s, b"af")], 1),
        ([(s, b"\x01\x00"), (s, b"\xff")], [(s, b"\x01\x00\xff")], -1),
    ]
    for left, right, order in cases:
        assert _sign(_key(*left), _key(*right)) == order, (left, right)


# --- collations -------------------------------------------------------------------------------

FOO = "Foo © bar 𝌆 baz ☃ qux".encode()
COLLATOR_KEYS = [  # collate_test.go TestUTF8CollatorKey: binary, utf8mb4_bin, utf8mb4_0900_bin
    ("a", b"a", b"a", b"a"),
    ("A", b"A", b"A", b"A"),
    ("Foo © bar 𝌆 baz ☃ qux", FOO, FOO, FOO),
    ("a ", b"a ", b"a", b"a "),
    ("ﷻ", b"\xef\xb7\xbb", b"\xef\xb7\xbb", b"\xef\xb7\xbb"),
    ("中文", "中文".encode(), "中文".encode(), "中文".encode()),
]


@pytest.mark.parametrize(("text", "binary", "bin_", "bin0900"), COLLATOR_KEYS)
def test_utf8_collator_key(text: str, binary: bytes, bin_: bytes, bin0900: bytes) -> None:
    data = text.encode()
    assert mc.collation_key("binary", data) == binary
    assert mc.collation_key("utf8mb4_bin", data) == bin_
    assert mc.collation_key("utf8_bin", data) == bin_
    assert mc.collation_key("utf8mb4_0900_bin", data) == bin0900


@pytest.mark.parametrize("name", ["utf8mb4_general_ci", "utf8mb4_unicode_ci", "gbk_bin"])
def test_other_collations_are_refused(name: str) -> None:
    with pytest.raises(CodecError, match=name):
        mc.collation_key(name, b"a")


def test_need_restored_data() -> None:
    """types.NeedRestoredData: CHAR in a _bin collation does not; VARCHAR and _ci do."""
    assert not mc.needs_restored_data("char", "utf8mb4_bin")
    assert mc.needs_restored_data("varchar", "utf8mb4_bin")
    assert mc.needs_restored_data("char", "utf8mb4_general_ci")
    assert not mc.needs_restored_data("varchar", "utf8mb4_0900_bin")
    assert not mc.needs_restored_data("varbinary", "binary")
    assert not mc.needs_restored_data("int", "binary")


# --- properties -------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.integers(I64_MIN, I64_MAX), st.integers(I64_MIN, I64_MAX))
def test_ints_keep_their_order(a: int, b: int) -> None:
    assert _sign(mc.encode_int(a), mc.encode_int(b)) == (a > b) - (a < b)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, (1 << 64) - 1), st.integers(0, (1 << 64) - 1))
def test_uints_keep_their_order(a: int, b: int) -> None:
    assert _sign(mc.encode_uint(a), mc.encode_uint(b)) == (a > b) - (a < b)


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False), st.floats(allow_nan=False))
def test_floats_keep_their_order(a: float, b: float) -> None:
    order = _sign(mc.encode_float(a), mc.encode_float(b))
    if a == b == 0:
        return  # -0.0 and 0.0 differ in bits; TiDB keeps that
    assert order == (a > b) - (a < b)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=20), st.binary(max_size=20), st.integers(), st.integers())
def test_composite_keys_keep_the_tuple_order(a: bytes, b: bytes, x: int, y: int) -> None:
    """Group encoding is prefix-free, so (bytes, int) keys sort as the tuples do."""
    x, y = x % (1 << 63), y % (1 << 63)
    left = mc.encode_bytes(a) + mc.encode_int(x)
    right = mc.encode_bytes(b) + mc.encode_int(y)
    assert _sign(left, right) == ((a, x) > (b, y)) - ((a, x) < (b, y))


# --- rows keyed by a common handle or a _tidb_rowid -------------------------------------------


def _table(columns: list[ColumnInfo], primary: tuple[str, ...] | None) -> TableInfo:
    indexes = [IndexInfo("primary", primary, unique=True, primary=True)] if primary else []
    return make_table("s", "t", 10, 1, columns, indexes)


UTF8 = {"charset": "utf8mb4", "collate": "utf8mb4_bin"}


def _value(ids_values: list[tuple[int, bytes]], version: int = 2) -> bytes:
    data = b""
    offsets = b""
    for _, v in ids_values:
        data += v
        offsets += struct.pack("<H", len(data))
    ids = bytes(i for i, _ in ids_values)
    head = bytes((128, 0x02)) + struct.pack("<HH", len(ids_values), 0)
    return head + ids + offsets + data + bytes((version,))


def test_a_clustered_composite_key() -> None:
    """VARCHAR utf8mb4_bin + INT, CLUSTERED: the handle is EncodeKey of both (the VARCHAR by
    its PAD SPACE key); the VARCHAR stays in the row value (restored data), the INT not."""
    table = _table(
        [
            ColumnInfo("k", "varchar", id=1, nullable=False, **UTF8),
            ColumnInfo("n", "int", id=2, nullable=False),
            ColumnInfo("v", "int", id=3),
        ],
        ("k", "n"),
    )
    image = {"k": "ab  ", "n": 7, "v": -1}
    handle = checksum.handle_bytes(table, image)
    assert handle == b"\x01" + b"ab" + bytes(6) + b"\xf9" + b"\x03" + mc.encode_int(7)
    value = checksum.row_value(table, image)
    assert value == _value([(1, b"ab  "), (3, b"\xff")])
    assert checksum.raw_checksum(table, image) == zlib.crc32(handle, zlib.crc32(value))
    key = b"t" + mc.encode_int(10) + b"_r" + handle
    assert checksum.raw_checksum(table, image, version=1) == zlib.crc32(
        key, zlib.crc32(_value([(1, b"ab  "), (3, b"\xff")], version=1))
    )


def test_a_clustered_char_and_binary_key_leave_the_value() -> None:
    table = _table(
        [
            ColumnInfo("c", "char", id=1, nullable=False, length=4, **UTF8),
            ColumnInfo("b", "varbinary", id=2, nullable=False),
            ColumnInfo("d", "decimal", id=3, nullable=False, length=6, decimal=2),
            ColumnInfo("v", "varchar", id=4, **UTF8),
        ],
        ("c", "b", "d"),
    )
    image = {"c": "x", "b": "AAE=", "d": "-1.5", "v": "y"}
    decimal = bytes((6, 2)) + checksum.decimal_bin("-1.50", 6, 2)
    assert checksum.handle_bytes(table, image) == (
        b"\x01" + mc.encode_bytes(b"x") + b"\x01" + mc.encode_bytes(b"\x00\x01") + b"\x06" + decimal
    )
    assert checksum.row_value(table, image) == _value([(4, b"y")])


def test_what_is_refused_names_the_column() -> None:
    ci = _table([ColumnInfo("k", "varchar", id=1, collate="utf8mb4_general_ci")], ("k",))
    with pytest.raises(checksum.ChecksumError, match=r"column 'k'.*utf8mb4_general_ci"):
        checksum.raw_checksum(ci, {"k": "a"})
    text = _table([ColumnInfo("t", "text", id=1, **UTF8)], ("t",))
    with pytest.raises(checksum.ChecksumError, match=r"column 't'.*prefix"):
        checksum.raw_checksum(text, {"t": "a"})
    json_key = _table([ColumnInfo("j", "json", id=1)], ("j",))
    with pytest.raises(checksum.ChecksumError, match="column 'j'"):
        checksum.raw_checksum(json_key, {"j": 1})


def test_rows_keyed_by_tidb_rowid() -> None:
    """No primary key, or a NONCLUSTERED one: the handle is the _tidb_rowid, which tisink's
    rows do not carry (refused unless given), and every column stays in the value."""
    columns = [ColumnInfo("id", "int", id=1, nullable=False), ColumnInfo("v", "int", id=2)]
    image = {"id": 3, "v": 4}
    value = _value([(1, b"\x03"), (2, b"\x04")])
    for table, clustered in ((_table(columns, None), None), (_table(columns, ("id",)), False)):
        with pytest.raises(checksum.ChecksumError, match="_tidb_rowid"):
            checksum.raw_checksum(table, image, clustered=clustered)
        raw = checksum.raw_checksum(table, image, handle=5, clustered=clustered)
        assert raw == zlib.crc32(mc.encode_int(5), zlib.crc32(value))
    nonclustered = _table([ColumnInfo("k", "varchar", id=1, **UTF8)], ("k",))
    assert checksum.handle_kind(nonclustered) == checksum.COMMON_HANDLE
    assert checksum.handle_kind(nonclustered, row_id=True) == checksum.ROW_ID
    raw = checksum.raw_checksum(nonclustered, {"k": "a"}, handle=9)
    assert raw == zlib.crc32(mc.encode_int(9), zlib.crc32(_value([(1, b"a")])))
