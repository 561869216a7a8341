"""Column values as TiCDC's Avro writes them: tiflow ``avroTestColumns``' expected data (at
2a7a65c6f4b4ff0196ca42d2680e6167d61b6994), goavro's decimal bytes, names and namespaces."""

from __future__ import annotations

import datetime

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.codec.avro.support import GO_COLUMNS, large_image, large_table
from tisink.codec.avro import columns, schema
from tisink.codec.avro.options import AvroOptions
from tisink.codec.names import sanitize_name
from tisink.model import ColumnInfo

UTC = datetime.UTC
EXPECTED = {
    "tiny": 1,
    "longunsigned": 1,
    "longlongunsigned": 1,
    "float": 3.140000104904175,  # float32(3.14)
    "double": 3.14,
    "bit": b"\x02\xab",
    "decimal": (129012).to_bytes(3, "big"),  # big.NewRat(129012123, 1000) at scale 0, floored
    "tinytext": "hello world",
    "tinyblob": b"hello world",
    "enum": "a",
    "set": "a",
    "json": '{"key": "value"}',
    "date": "2000-01-01",
    "datetime": "2015-12-20 23:58:58",
    "timestamp": "1973-12-30 15:30:00",
    "time": "23:59:59",
    "year": 1970,
}


def test_values_are_tiflow_s_expected_data() -> None:
    table, image = large_table(), large_image()
    for name, expected in EXPECTED.items():
        convert = columns.converter(table.column_by_name[name], AvroOptions(), UTC)
        assert convert(image[name]) == expected, name


def test_string_modes_give_text() -> None:
    table = large_table()
    options = AvroOptions(decimal_handling_mode="string", bigint_unsigned_handling_mode="string")
    decimal = columns.converter(table.column_by_name["decimal"], options, UTC)
    bigint = columns.converter(table.column_by_name["longlongunsigned"], options, UTC)
    assert decimal("129012.1230000") == "129012.1230000"
    assert bigint(1) == "1"
    assert bigint(18446744073709551615) == "18446744073709551615"


def test_unsigned_bigint_as_long_wraps_like_go() -> None:
    column = large_table().column_by_name["longlongunsigned"]
    convert = columns.converter(column, AvroOptions(), UTC)
    assert convert(18446744073709551615) == -1
    assert convert((1 << 63) - 1) == (1 << 63) - 1


@pytest.mark.parametrize(
    ("number", "raw"),
    [(0, b"\x00"), (1, b"\x01"), (683, b"\x02\xab"), (1 << 63, b"\x80" + bytes(7))],
)
def test_bit_is_tidb_s_binary_literal(number: int, raw: bytes) -> None:
    assert columns.bit_bytes(number) == raw


def _goavro_bytes(unscaled: int) -> bytes:
    """goavro ``toSignedBytes``, written from its description: minimal two's complement."""
    if unscaled == 0:
        return b"\x00"
    if unscaled > 0:
        raw = unscaled.to_bytes((unscaled.bit_length() + 7) // 8, "big")
        return b"\x00" + raw if raw[0] & 0x80 else raw
    length = (unscaled.bit_length() // 8 + 1) * 8
    raw = (unscaled + (1 << length)).to_bytes(length // 8, "big").lstrip(b"\x00")
    if len(raw) >= 2 and raw[0] == 0xFF and raw[1] & 0x80:
        raw = raw[1:]
    return raw


@given(st.integers(-(10**30), 10**30), st.integers(0, 12), st.integers(0, 12))
def test_decimal_bytes_are_goavro_s(unscaled: int, digits: int, scale: int) -> None:
    sign = "-" if unscaled < 0 else ""
    text = str(abs(unscaled)).rjust(digits + 1, "0")
    text = sign + (text[:-digits] + "." + text[-digits:] if digits else text)
    floored = unscaled * 10**scale // 10**digits  # Go's big.Int.Div floors for a positive divisor
    assert columns.decimal_bytes(text, scale) == _goavro_bytes(floored)


def test_sanitize_name_and_namespace_are_tiflow_s() -> None:
    # tiflow TestSanitizeName and TestGetAvroNamespace
    assert sanitize_name("normalColumnName123") == "normalColumnName123"
    assert sanitize_name("1ColumnNameStartWithNumber") == "_1ColumnNameStartWithNumber"
    assert sanitize_name("A.B") == "A_B"
    assert sanitize_name("columnNameWith中文") == "columnNameWith__"
    assert schema.namespace("normalNamespace", "normalSchema") == "normalNamespace.normalSchema"
    assert schema.namespace("1Namespace", "1Schema") == "_1Namespace._1Schema"
    assert schema.namespace("N-amespace", "S.chema") == "N_amespace.S_chema"
    assert schema.namespace("normalNamespace", "") == "normalNamespace"


def test_tidb_types_of_the_golden_columns() -> None:
    table = large_table()
    names = {name: columns.tidb_type(table.column_by_name[name]) for name, *_ in GO_COLUMNS}
    assert names["longunsigned"] == "INT UNSIGNED" and names["tinyunsigned"] == "INT UNSIGNED"
    assert names["varbinary1"] == "BLOB" and names["string"] == "TEXT"
    assert names["year"] == "YEAR"


def test_defaults_are_read_as_tidb_s_default_text() -> None:
    options = AvroOptions()
    assert columns.default_json(ColumnInfo("a", "int", default="5"), options) == 5
    assert columns.default_json(ColumnInfo("b", "varchar", default="x"), options) == "x"
    assert columns.default_json(ColumnInfo("c", "bit", length=10, default=5), options) == "AAU="
    double = columns.default_json(ColumnInfo("d", "double", default="1e-7"), options)
    assert orjson.dumps(double) == b"1e-7"  # Go's float64 JSON text
    unsigned = ColumnInfo("e", "bigint", unsigned=True, default="18446744073709551615")
    assert columns.default_json(unsigned, options) == -1
