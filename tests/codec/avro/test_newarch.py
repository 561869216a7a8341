"""Where ticdc (``newarch``, the default) and tiflow (``newarch=false``) write different Avro
bytes (README.md "Classic and new architecture"): the key's columns, BIT's width, virtual
generated columns in the value, and the DELETE marker with watermarks on."""

from __future__ import annotations

import io
import json

import fastavro
import pytest

from tests.codec.avro.memory_registry import MemoryRegistry
from tests.codec.avro.support import TS, delete, encoder, insert
from tisink.codec.avro import wire
from tisink.codec.avro.decoder import AvroDecoder
from tisink.codec.avro.encoder import TOMBSTONE
from tisink.codec.errors import CodecError
from tisink.model import ColumnInfo, IndexInfo, TableInfo, make_table


def _datum(registry: MemoryRegistry, data: bytes) -> dict:
    schema_id, payload = wire.split(data)
    parsed = fastavro.parse_schema(json.loads(registry.schema_by_id(schema_id)))
    return fastavro.schemaless_reader(io.BytesIO(payload), parsed, None)  # type: ignore[return-value]


def _unique_only() -> TableInfo:
    """A NOT NULL unique key and no primary key: tiflow's handle key, not ticdc's key."""
    cols = [ColumnInfo("u", "int", nullable=False), ColumnInfo("v", "int")]
    return make_table("db", "t", 5, 1, cols, [IndexInfo("u", ("u",), True, False)])


def test_ticdc_keys_by_the_primary_key_only() -> None:
    """ticdc ``encodeKey`` takes ``RowEvent.PrimaryKeyColumn()``: no primary key, no key."""
    key, value = encoder().encode_rows([insert(_unique_only(), {"u": 1, "v": 2})]).records[0]
    assert key is None and value is not None


def test_tiflow_keys_by_the_handle_key() -> None:
    """tiflow ``encodeKey`` takes ``HandleKeyColInfos()``: the NOT NULL unique key."""
    registry = MemoryRegistry()
    enc = encoder(registry, newarch=False)
    key, _ = enc.encode_rows([insert(_unique_only(), {"u": 1, "v": 2})]).records[0]
    assert key is not None and _datum(registry, key) == {"u": 1}


def _bit_table() -> TableInfo:
    cols = [ColumnInfo("id", "int", nullable=False), ColumnInfo("b", "bit", length=20)]
    return make_table("db", "t", 5, 1, cols, [IndexInfo("primary", ("id",), True, True)])


@pytest.mark.parametrize(("newarch", "raw"), [(True, b"\x00\x00\x05"), (False, b"\x05")])
def test_bit_width(newarch: bool, raw: bytes) -> None:
    """ticdc writes the chunk's ``BinaryLiteral`` ((M+7)/8 bytes), tiflow
    ``NewBinaryLiteralFromUint(v, -1)`` (leading zero bytes dropped)."""
    registry = MemoryRegistry()
    enc = encoder(registry, newarch=newarch)
    _, value = enc.encode_rows([insert(_bit_table(), {"id": 1, "b": 5})]).records[0]
    assert _datum(registry, value or b"")["b"] == raw


def _virtual_table(nullable: bool = True) -> TableInfo:
    cols = [
        ColumnInfo("id", "int", nullable=False),
        ColumnInfo("g", "int", nullable=nullable, generated="virtual"),
        ColumnInfo("s", "int", generated="stored"),
    ]
    return make_table("db", "t", 5, 1, cols, [IndexInfo("primary", ("id",), True, True)])


def test_ticdc_writes_virtual_generated_columns_as_null() -> None:
    """ticdc's chunk rows hold a virtual generated column as NULL and ``columns2AvroSchema``
    does not skip it; tiflow's ``e.Columns`` leave it out."""
    registry = MemoryRegistry()
    row = insert(_virtual_table(), {"id": 1, "s": 3})
    _, value = encoder(registry).encode_rows([row]).records[0]
    assert _datum(registry, value or b"") == {"id": 1, "g": None, "s": 3}
    schema_id, _ = wire.split(value or b"")
    names = [f["name"] for f in json.loads(registry.schema_by_id(schema_id))["fields"]]
    assert names == ["id", "g", "s"]

    registry = MemoryRegistry()
    enc = encoder(registry, newarch=False)
    _, value = enc.encode_rows([insert(_virtual_table(), {"id": 1, "s": 3})]).records[0]
    assert _datum(registry, value or b"") == {"id": 1, "s": 3}


def test_ticdc_refuses_a_not_null_virtual_column() -> None:
    """goavro cannot write the NULL of a NOT NULL virtual column: ticdc fails the row."""
    with pytest.raises(CodecError, match="virtual generated column 'g'"):
        encoder().encode_rows([insert(_virtual_table(nullable=False), {"id": 1, "s": 3})])


def _keyed() -> TableInfo:
    cols = [ColumnInfo("id", "int", nullable=False), ColumnInfo("v", "int")]
    return make_table("db", "t", 5, 1, cols, [IndexInfo("primary", ("id",), True, True)])


def test_ticdc_delete_marker_with_watermarks() -> None:
    """ticdc ``encodeValue``: a DELETE with the extension and watermarks on is ``0x03`` and
    the commit ts, 8 bytes big-endian; the decoder reads its commit ts."""
    registry = MemoryRegistry()
    enc = encoder(registry, enable_tidb_extension=True, enable_watermark=True)
    record = enc.encode_rows([delete(_keyed(), {"id": 1, "v": 2})]).records[0]
    assert record[1] == b"\x03" + TS.to_bytes(8, "big")
    (message,) = AvroDecoder(registry=registry).decode(*record)
    assert (message.type, message.commit_ts, message.old) == ("DELETE", TS, {"id": 1})


@pytest.mark.parametrize(
    ("newarch", "options"),
    [
        (False, {"enable_tidb_extension": True, "enable_watermark": True}),
        (True, {"enable_tidb_extension": True}),
        (True, {}),
    ],
)
def test_tombstone_otherwise(newarch: bool, options: dict) -> None:
    """tiflow always writes a null value; ticdc too without watermarks."""
    enc = encoder(newarch=newarch, **options)
    _, value = enc.encode_rows([delete(_keyed(), {"id": 1, "v": 2})]).records[0]
    assert value == TOMBSTONE
