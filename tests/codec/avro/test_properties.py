"""Round trips over generated tables and rows: encode, then read back with our decoder and,
independently, with fastavro's ``schemaless_reader`` on the bytes after the 5-byte Confluent
header, against values worked out here from the feed values."""

from __future__ import annotations

import base64
import io
import json
from decimal import Decimal
from typing import Any

import avro.io
import avro.schema
import fastavro
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.codec.avro.memory_registry import MemoryRegistry
from tests.codec.avro.support import encoder, insert
from tisink.codec.avro import wire
from tisink.codec.avro.decoder import AvroDecoder
from tisink.codec.values import to_float32
from tisink.model import ColumnInfo, IndexInfo, make_table

_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
_MEMBERS = ("a", "b", "c")


def _decimal_text(n: int) -> str:
    sign = "-" if n < 0 else ""
    digits = str(abs(n)).rjust(3, "0")
    return f"{sign}{digits[:-2]}.{digits[-2:]}"


# (column, feed value strategy, expected read-back of a feed value)
_KINDS: list[tuple[ColumnInfo, st.SearchStrategy[Any], Any]] = [
    (ColumnInfo("i", "int"), st.integers(-(2**31), 2**31 - 1), lambda v: v),
    (ColumnInfo("iu", "int", unsigned=True), st.integers(0, 2**32 - 1), lambda v: v),
    (ColumnInfo("b", "bigint"), st.integers(-(2**63), 2**63 - 1), lambda v: v),
    (
        ColumnInfo("bu", "bigint", unsigned=True),
        st.integers(0, 2**64 - 1),
        lambda v: v - 2**64 if v >= 2**63 else v,
    ),
    (
        ColumnInfo("f", "float"),
        st.floats(-1e30, 1e30, allow_nan=False),
        to_float32,
    ),
    (ColumnInfo("d", "double"), st.floats(allow_nan=False, allow_infinity=False), lambda v: v),
    (
        ColumnInfo("m", "decimal", length=20, decimal=2),
        st.integers(-(10**18), 10**18).map(_decimal_text),
        Decimal,
    ),
    (ColumnInfo("s", "varchar", "utf8mb4", "utf8mb4_bin", 40), _TEXT, lambda v: v),
    (
        ColumnInfo("v", "varbinary", length=40),
        st.binary(max_size=12).map(lambda b: base64.b64encode(b).decode()),
        base64.b64decode,
    ),
    (ColumnInfo("e", "enum", elements=_MEMBERS), st.sampled_from(_MEMBERS), lambda v: v),
    (
        ColumnInfo("t", "set", elements=_MEMBERS),
        st.lists(st.sampled_from(_MEMBERS), unique=True),
        lambda v: ",".join(m for m in _MEMBERS if m in v),
    ),
    (
        ColumnInfo("bit", "bit", length=16),
        st.integers(0, 2**16 - 1),
        lambda v: v.to_bytes(max(1, (v.bit_length() + 7) // 8), "big"),
    ),
    (ColumnInfo("dt", "date"), st.dates().map(str), lambda v: v),
    (ColumnInfo("y", "year"), st.integers(1901, 2155), lambda v: v),
]


@st.composite
def _rows(draw: st.DrawFn) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    picks = draw(st.lists(st.sampled_from(range(len(_KINDS))), min_size=1, max_size=8))
    cols = [ColumnInfo("id", "bigint", nullable=False)]
    image: dict[str, Any] = {"id": draw(st.integers(0, 2**63 - 1))}
    expected: dict[str, Any] = {"id": image["id"]}
    for position, pick in enumerate(picks):
        column, values, read = _KINDS[pick]
        name = f"{column.name}{position}"
        nullable = draw(st.booleans())
        cols.append(
            ColumnInfo(
                name,
                column.mysql_type,
                column.charset,
                column.collate,
                column.length,
                column.decimal,
                column.elements,
                column.unsigned,
                nullable=nullable,
            )
        )
        value = None if nullable and draw(st.booleans()) else draw(values)
        image[name] = value
        expected[name] = None if value is None else read(value)
    table = make_table("db", "t", 1, 1, cols, [IndexInfo("primary", ("id",), True, True)])
    return table, image, expected


@settings(max_examples=150, deadline=None)
@given(_rows(), st.booleans())
def test_rows_read_back_as_written(drawn: Any, extension: bool) -> None:
    table, image, expected = drawn
    registry = MemoryRegistry()
    enc = encoder(registry, enable_tidb_extension=extension, newarch=False)
    key, value = enc.encode_rows([insert(table, image)]).records[0]
    (message,) = AvroDecoder(registry=registry).decode(key, value)
    assert message.data == expected
    schema_id, payload = wire.split(value)
    parsed = fastavro.parse_schema(json.loads(registry.schema_by_id(schema_id)))
    independent = fastavro.schemaless_reader(io.BytesIO(payload), parsed, None)
    assert isinstance(independent, dict)
    assert {k: v for k, v in independent.items() if not k.startswith("_tidb")} == expected
    assert ("_tidb_commit_ts" in independent) is extension


@settings(max_examples=50, deadline=None)
@given(_rows())
def test_apache_avro_reads_the_same_values(drawn: Any) -> None:
    """A third reader, the Apache Avro library's, on the framed payload."""
    table, image, expected = drawn
    registry = MemoryRegistry()
    _, value = encoder(registry, newarch=False).encode_rows([insert(table, image)]).records[0]
    schema_id, payload = wire.split(value)
    reader = avro.io.DatumReader(avro.schema.parse(registry.schema_by_id(schema_id)))
    assert reader.read(avro.io.BinaryDecoder(io.BytesIO(payload))) == expected
