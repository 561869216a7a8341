"""TiDB's binary JSON (``codec.values.json_binary``) against TiDB's format and tests (README.md
names each source), and the raw-bytes checksum of a row with a JSON column."""

from __future__ import annotations

import json
import struct
import zlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.codec import checksum
from tisink.codec.errors import CodecError
from tisink.codec.values.json_binary import (
    JSONDuration,
    JSONOpaque,
    JSONTime,
    json_binary,
)
from tisink.codec.values.json_text import json_text
from tisink.model.table import ColumnInfo, IndexInfo, make_table

# --- a reader of the format, as TiDB's valEntryGet/objectGetKey read it ----------------------


def _u32(b: bytes, at: int) -> int:
    return int(struct.unpack_from("<I", b, at)[0])


def _uvarint(b: bytes, at: int) -> tuple[int, int]:
    n = shift = 0
    while True:
        byte = b[at]
        at += 1
        n |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return n, at


def _read(type_code: int, b: bytes, at: int) -> Any:
    if type_code == 0x04:
        return {0: None, 1: True, 2: False}[b[at]]
    if type_code == 0x09:
        return struct.unpack_from("<q", b, at)[0]
    if type_code == 0x0A:
        return struct.unpack_from("<Q", b, at)[0]
    if type_code == 0x0B:
        return struct.unpack_from("<d", b, at)[0]
    if type_code == 0x0C:
        n, start = _uvarint(b, at)
        return b[start : start + n].decode()
    assert type_code in (0x01, 0x03), type_code
    count, size = _u32(b, at), _u32(b, at + 4)
    keys_at = at + 8
    values_at = keys_at + (6 * count if type_code == 0x01 else 0)
    items = []
    for i in range(count):
        entry = values_at + 5 * i
        code = b[entry]
        where = entry + 1 if code == 0x04 else at + _u32(b, entry + 1)
        assert where < at + size
        items.append(_read(code, b, where))
    if type_code == 0x03:
        return items
    keys = []
    for i in range(count):
        offset = _u32(b, keys_at + 6 * i)
        length = struct.unpack_from("<H", b, keys_at + 6 * i + 4)[0]
        keys.append(b[at + offset : at + offset + length].decode())
    assert keys == sorted(keys, key=str.encode)
    return dict(zip(keys, items, strict=True))


def decode(data: bytes) -> Any:
    return _read(data[0], data, 1)


# --- vectors ----------------------------------------------------------------------------------


def test_the_layout_of_the_format_comment() -> None:
    """json_binary.go's format: object = count, size, key entries, value entries, keys,
    values; offsets from the container's start; only literals inlined."""
    assert json_binary({"a": 1}).hex(" ") == (
        "01 01 00 00 00 1c 00 00 00"  # object, 1 member, 28 bytes
        " 13 00 00 00 01 00"  # key at 19, 1 byte
        " 09 14 00 00 00"  # int64 at 20
        " 61 01 00 00 00 00 00 00 00"  # "a", 1
    )
    assert json_binary([True, "x"]).hex(" ") == (
        "03 02 00 00 00 14 00 00 00"  # array, 2 elements, 20 bytes
        " 04 01 00 00 00"  # true, inlined
        " 0c 12 00 00 00"  # string at 18
        " 01 78"  # uvarint 1, "x"
    )
    assert json_binary(None) == b"\x04\x00"
    assert json_binary(False) == b"\x04\x02"
    assert json_binary("é" * 100).startswith(b"\x0c\xc8\x01")  # 200 bytes: uvarint c8 01
    assert json_binary(1.5) == b"\x0b" + struct.pack("<d", 1.5)
    assert json_binary({}) == bytes.fromhex("01 00000000 08000000")
    assert json_binary([]) == bytes.fromhex("03 00000000 08000000")


@pytest.mark.parametrize(
    "text",
    [
        '{"a": [1, "2", {"aa": "bb"}, 4, null], "b": true, "c": null}',
        '{"aaaaaaaaaaa": [1, "2", {"aa": "bb"}, 4.1], "bbbbbbbbbb": true, "ccccccccc": "d"}',
        '[{"a": 1, "b": true}, 3, 3.5, "hello, world", null, true]',
        '{"a": "&<>"}',
    ],
)
def test_binary_json_marshal_unmarshal(text: str) -> None:
    """TestBinaryJSONMarshalUnmarshal: each document reads back to its own String()."""
    assert json_text(decode(json_binary(json.loads(text)))) == text


def test_parse_binary_from_string_cases() -> None:
    """TestParseBinaryFromString's valid inputs: number typing, duplicate keys (last wins),
    key order, lone surrogates (U+FFFD), depth 100."""
    numbers = json.loads(
        "[9223372036854775807,-9223372036854775808,9223372036854775808,18446744073709551615,"
        "18446744073709551616,-9223372036854775809,-0,1e2,1.25]"
    )
    data = json_binary(numbers)
    codes = [data[1 + 8 + 5 * i] for i in range(len(numbers))]
    assert codes == [0x09, 0x09, 0x0A, 0x0A, 0x0B, 0x0B, 0x09, 0x0B, 0x0B]
    assert json_binary(json.loads(' { "b": 2, "a": 1 } ')) == json_binary({"a": 1, "b": 2})
    assert json_binary(json.loads('{"a":1,"a":2}')) == json_binary({"a": 2})
    assert json_binary(json.loads('{"a":1,"\\u0061":2}')) == json_binary({"a": 2})
    assert json_binary(json.loads('{"replacement":"\\uD800"}')) == json_binary(
        {"replacement": "\ufffd"}
    )
    deep: Any = 0
    for _ in range(100):
        deep = [deep]
    json_binary(deep)
    with pytest.raises(CodecError, match="deeper than 100"):
        json_binary([deep])


def test_binary_json_type() -> None:
    """TestBinaryJSONType: 3 is INTEGER, 3.0 DOUBLE; uint64(1<<63) UNSIGNED INTEGER."""
    assert json_binary(json.loads("3"))[0] == 0x09
    assert json_binary(json.loads("3.0"))[0] == 0x0B
    assert json_binary(1 << 63)[0] == 0x0A


def test_opaque_and_temporal_values() -> None:
    assert json_binary(JSONOpaque(0xFE, b"ab")) == b"\x0d\xfe\x02ab"
    packed = checksum.packed_time("2011-11-10 11:11:11.999999")
    assert json_binary(JSONTime(0x0F, packed)) == b"\x0f" + struct.pack("<Q", packed)
    assert json_binary(JSONDuration(-1, 6)) == b"\x11" + b"\xff" * 8 + b"\x06\x00\x00\x00"
    for bad in (float("nan"), float("inf"), {1: 2}, object()):
        with pytest.raises(CodecError):
            json_binary(bad)


# --- properties -------------------------------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(1 << 64), 1 << 65)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=20,
)


def _canonical(v: Any) -> Any:
    """What TiDB keeps of a parsed value: out-of-range integers as floats, strings repaired."""
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, int):
        return v if -(1 << 63) <= v < 1 << 64 else float(v)
    if isinstance(v, str):
        return v.encode("utf-8", "replace").decode()
    if isinstance(v, list):
        return [_canonical(x) for x in v]
    if isinstance(v, dict):
        return {_canonical(k): _canonical(x) for k, x in v.items()}
    return v


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_the_encoding_reads_back(value: Any) -> None:
    assert decode(json_binary(value)) == _canonical(value)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=8), json_values, max_size=8), st.randoms())
def test_an_objects_bytes_do_not_depend_on_its_key_order(members: dict[str, Any], rnd: Any) -> None:
    items = list(members.items())
    rnd.shuffle(items)
    assert json_binary(dict(items)) == json_binary(members)


# --- a row with a JSON column -----------------------------------------------------------------


def test_the_raw_checksum_of_a_row_with_a_json_column() -> None:
    table = make_table(
        "s",
        "t",
        10,
        1,
        [ColumnInfo("id", "bigint", id=1, nullable=False), ColumnInfo("j", "json", id=2)],
        [IndexInfo("primary", ("id",), unique=True, primary=True)],
    )
    image = {"id": 1, "j": {"foo": "bar", "a": 42}}
    body = json_binary({"a": 42, "foo": "bar"})
    value = checksum.row_value(table, image)
    expected = bytes((128, 0x02)) + struct.pack("<HH", 1, 0) + bytes((2,))
    expected += struct.pack("<H", len(body)) + body + bytes((2,))
    assert value == expected
    assert checksum.raw_checksum(table, image) == zlib.crc32(
        checksum.int_handle_bytes(1), zlib.crc32(expected)
    )
    with pytest.raises(checksum.ChecksumError, match="column 'j'"):
        checksum.raw_checksum(table, {"id": 1, "j": float("nan")})
