"""The decoder ``tisink verify`` reads Avro with: round trips through the in-memory registry,
the markers, and the records it refuses."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.codec.avro.memory_registry import MemoryRegistry
from tests.codec.avro.support import TS, delete, encoder, insert, large_image, large_table, update
from tisink.codec.avro import wire
from tisink.codec.avro.decoder import AvroDecoder
from tisink.codec.avro.options import AvroOptions
from tisink.codec.config import EncoderConfig
from tisink.codec.decoded import DDL, DML, WATERMARK
from tisink.codec.errors import MessageDecodeError
from tisink.model import ColumnInfo, DDLEvent, DDLType, IndexInfo, make_table

TABLE = make_table(
    "db",
    "tb",
    7,
    1,
    [
        ColumnInfo("id", "bigint", nullable=False),
        ColumnInfo("name", "varchar", "utf8mb4", "utf8mb4_bin", 40),
        ColumnInfo("price", "decimal", length=8, decimal=2),
    ],
    [IndexInfo("primary", ("id",), True, True)],
)


def test_rows_round_trip_with_op_and_commit_ts() -> None:
    registry = MemoryRegistry()
    enc, dec = encoder(registry, enable_tidb_extension=True), AvroDecoder(registry=registry)
    rows = [
        insert(TABLE, {"id": 1, "name": "a", "price": "1.50"}, ts=TS),
        update(
            TABLE,
            {"id": 1, "name": "a", "price": "1.50"},
            {"id": 1, "name": None, "price": "-2.25"},
            ts=TS + 1,
        ),
        delete(TABLE, {"id": 1, "name": None, "price": "-2.25"}, ts=TS + 2),
    ]
    decoded = [m for record in enc.encode_rows(rows).records for m in dec.decode(*record)]
    assert [(m.kind, m.type, m.commit_ts, m.table_name) for m in decoded] == [
        (DML, "INSERT", TS, "db.tb"),
        (DML, "UPDATE", TS + 1, "db.tb"),
        (DML, "DELETE", TS + 1, "db.tb"),  # its key alone: dated at the newest ts before it
    ]
    assert decoded[0].data == {"id": 1, "name": "a", "price": Decimal("1.50")}
    assert decoded[1].data == {"id": 1, "name": None, "price": Decimal("-2.25")}
    assert decoded[2].old == {"id": 1} and decoded[2].data is None
    assert decoded[0].table_schema is not None and decoded[0].table_schema.handle_key == ("id",)


def test_without_the_extension_a_row_reads_as_an_insert() -> None:
    registry = MemoryRegistry()
    row = update(
        TABLE, {"id": 1, "name": "a", "price": None}, {"id": 1, "name": "b", "price": None}
    )
    (record,) = encoder(registry).encode_rows([row]).records
    (message,) = AvroDecoder(registry=registry).decode(*record)
    assert (message.type, message.commit_ts) == ("INSERT", 0)


def test_the_large_golden_row_round_trips() -> None:
    registry = MemoryRegistry()
    (record,) = encoder(registry).encode_rows([insert(large_table(), large_image())]).records
    (message,) = AvroDecoder(registry=registry).decode(*record)
    assert message.data is not None
    assert message.data["bit"] == b"\x02\xab" and message.data["set"] == "a"
    assert message.data["decimal"] == Decimal("129012")  # scale 0: floored
    assert (message.database, message.table) == ("testdb", "avroencode")


def test_markers_decode() -> None:
    enc = encoder(enable_tidb_extension=True, enable_watermark=True)
    dec = AvroDecoder(registry=MemoryRegistry())
    ddl = DDLEvent(TS, DDLType.TRUNCATE, "TRUNCATE TABLE tb", TABLE)
    message = enc.encode_ddl(ddl)
    assert message is not None
    (decoded,) = dec.decode(message.key, message.value)
    assert (decoded.kind, decoded.type, decoded.commit_ts, decoded.table_name) == (
        DDL,
        "TRUNCATE",
        TS,
        "db.tb",
    )
    checkpoint = enc.encode_checkpoint(1591943372224)
    assert checkpoint is not None
    (decoded,) = dec.decode(None, checkpoint.value)
    assert (decoded.kind, decoded.commit_ts) == (WATERMARK, 1591943372224)


@pytest.mark.parametrize(
    ("key", "value", "reason"),
    [
        (None, None, "neither key nor value"),
        (None, b"\x07abc", "magic byte"),
        (b"\x00\x00", b"", "magic byte"),
        (None, b"\x02\x00", "9 bytes"),
        (None, b"\x01not json", "not an Avro message"),
        (None, wire.header(99) + b"\x02", "schema id 99 not found"),
    ],
)
def test_bad_records_are_refused(key: bytes | None, value: bytes | None, reason: str) -> None:
    with pytest.raises(MessageDecodeError, match=reason):
        AvroDecoder(registry=MemoryRegistry()).decode(key, value)


def test_data_that_does_not_fit_its_schema_is_refused() -> None:
    registry = MemoryRegistry()
    (record,) = (
        encoder(registry)
        .encode_rows([insert(TABLE, {"id": 1, "name": "a", "price": None})])
        .records
    )
    with pytest.raises(MessageDecodeError, match="does not match schema id 2"):
        AvroDecoder(registry=registry).decode(None, record[1][:-3])


def test_the_spec_builds_a_decoder_for_the_configured_registry() -> None:
    options = AvroOptions(schema_registry="http://127.0.0.1:1")
    config = EncoderConfig(protocol="avro", options=options)
    assert config.spec.new_decoder is not None
    assert isinstance(config.spec.new_decoder(config), AvroDecoder)


def test_a_delete_after_a_checkpoint_is_dated_after_it() -> None:
    registry = MemoryRegistry()
    enc = encoder(registry, enable_tidb_extension=True, enable_watermark=True, newarch=False)
    dec = AvroDecoder(registry=registry)
    assert (
        dec.decode(
            *enc.encode_rows([delete(TABLE, {"id": 1, "name": None, "price": None})]).records[0]
        )[0].commit_ts
        == 0
    )
    checkpoint = enc.encode_checkpoint(TS)
    assert checkpoint is not None
    dec.decode(None, checkpoint.value)
    (record,) = enc.encode_rows([delete(TABLE, {"id": 1, "name": None, "price": None})]).records
    assert dec.decode(*record)[0].commit_ts == TS + 1
