"""SimpleEncoder: compression, size limits, large-message fallbacks, wiring (spec 1.8, 5)."""

from __future__ import annotations

import base64
import json
import random
import uuid
from io import BytesIO
from pathlib import Path
from typing import Any

import fastavro
import pytest

from tisink.codec import new_encoder
from tisink.codec.compression import decompress
from tisink.codec.config import EncoderConfig
from tisink.codec.debug.encoder import DebugEncoder
from tisink.codec.errors import CodecError, MessageTooLargeError
from tisink.codec.message import MessageType
from tisink.codec.simple.encoder import SimpleEncoder
from tisink.codec.simple.json_marshaller import JSONMarshaller
from tisink.core.clock import FixedClock
from tisink.core.errors import ConfigError
from tisink.core.framing import RECORD_OVERHEAD
from tisink.model import (
    ColumnInfo,
    DDLEvent,
    DDLType,
    IndexInfo,
    RowChangedEvent,
    RowChecksum,
    TableInfo,
    make_table,
)

BUILD_TS = 1_708_923_662_983
TEXT = {"charset": "utf8mb4", "collate": "utf8mb4_bin"}


@pytest.fixture
def table() -> TableInfo:
    return make_table(
        "shop",
        "orders",
        77,
        9,
        [
            ColumnInfo("id", "bigint", length=20, nullable=False),
            ColumnInfo("note", "text", length=65535, **TEXT),
            ColumnInfo("at", "timestamp", length=19),
        ],
        [IndexInfo("primary", ("id",), unique=True, primary=True)],
    )


def _row(table: TableInfo, note: str = "x", op: str = "INSERT") -> RowChangedEvent:
    image = {"id": 7, "note": note, "at": "2024-01-02 03:04:05"}
    before = image if op in ("UPDATE", "DELETE") else None
    after = image if op in ("UPDATE", "INSERT") else None
    return RowChangedEvent(100, 200, table, before, after)


def _encoder(**settings: Any) -> SimpleEncoder:
    return SimpleEncoder(
        EncoderConfig(**{"time_zone": "UTC", **settings}),
        FixedClock(BUILD_TS),
        uuid_factory=lambda: uuid.UUID(int=42),
    )


def test_new_encoder_picks_the_protocol() -> None:
    assert isinstance(new_encoder(EncoderConfig()), SimpleEncoder)
    assert isinstance(new_encoder(EncoderConfig(protocol="debug")), DebugEncoder)
    with pytest.raises(ConfigError, match="unknown protocol 'nope'; expected one of simple, debug"):
        EncoderConfig(protocol="nope")


def test_message_fields(table: TableInfo) -> None:
    message = _encoder().encode_row(_row(table))
    assert (message.key, message.type, message.rows, message.table) == (
        b"",
        MessageType.DML,
        1,
        "shop.orders",
    )
    assert message.claim_check is None
    decoded = json.loads(message.value)
    assert decoded["data"]["at"] == {"location": "UTC", "value": "2024-01-02 03:04:05"}
    assert decoded["buildTs"] == BUILD_TS


def test_time_zone_is_applied(table: TableInfo) -> None:
    decoded = json.loads(_encoder(time_zone="Asia/Shanghai").encode_row(_row(table)).value)
    assert decoded["data"]["at"] == {"location": "Asia/Shanghai", "value": "2024-01-02 11:04:05"}


@pytest.mark.parametrize("kind", ["none", "snappy", "lz4"])
def test_every_message_is_compressed(table: TableInfo, kind: str) -> None:
    encoder = _encoder(large_message_handle_compression=kind)
    plain = JSONMarshaller("UTC")
    row = _row(table, note="abc" * 100, op="UPDATE")
    ddl = DDLEvent(300, DDLType.TRUNCATE, "TRUNCATE TABLE orders", table, table)
    pairs = [
        (encoder.encode_row(row).value, plain.marshal_row(row, BUILD_TS)),
        (encoder.encode_ddl(ddl).value, plain.marshal_ddl(ddl, BUILD_TS)),
        (
            encoder.encode_ddl(DDLEvent.bootstrap(table)).value,
            plain.marshal_ddl(DDLEvent.bootstrap(table), BUILD_TS),
        ),
        (encoder.encode_checkpoint(400).value, plain.marshal_checkpoint(400, BUILD_TS)),
    ]
    for sent, expected in pairs:
        assert decompress(kind, sent) == expected
        if kind != "none":
            assert sent != expected


def test_size_limit_counts_the_record_overhead(table: TableInfo) -> None:
    size = len(_encoder().encode_row(_row(table)).value)
    assert _encoder(max_message_bytes=size + RECORD_OVERHEAD).encode_row(_row(table))
    with pytest.raises(MessageTooLargeError, match=r"shop\.orders"):
        _encoder(max_message_bytes=size + RECORD_OVERHEAD - 1).encode_row(_row(table))


def test_ddl_and_bootstrap_have_no_fallback(table: TableInfo) -> None:
    encoder = _encoder(max_message_bytes=100, large_message_handle_option="handle-key-only")
    with pytest.raises(MessageTooLargeError, match=r"DDL ALTER shop\.orders"):
        encoder.encode_ddl(DDLEvent(1, DDLType.ALTER, "ALTER TABLE orders", table, table))
    with pytest.raises(MessageTooLargeError, match=r"BOOTSTRAP .*shop\.orders"):
        encoder.encode_ddl(DDLEvent.bootstrap(table))
    assert encoder.encode_checkpoint(5).type is MessageType.WATERMARK  # never checked


@pytest.mark.parametrize("op", ["INSERT", "UPDATE", "DELETE"])
def test_handle_key_only(table: TableInfo, op: str) -> None:
    encoder = _encoder(max_message_bytes=400, large_message_handle_option="handle-key-only")
    message = encoder.encode_row(_row(table, note="n" * 1000, op=op))
    decoded = json.loads(message.value)
    assert decoded["handleKeyOnly"] is True
    assert "claimCheckLocation" not in decoded
    for image in ("data", "old"):
        if image in decoded:
            assert decoded[image] == {"id": "7"}
    assert ("data" in decoded) == (op != "DELETE")
    assert ("old" in decoded) == (op != "INSERT")
    assert message.claim_check is None


def test_handle_key_only_without_a_handle_key_omits_the_images() -> None:
    keyless = make_table("s", "t", 1, 1, [ColumnInfo("note", "text", **TEXT)])
    encoder = _encoder(max_message_bytes=200, large_message_handle_option="handle-key-only")
    row = RowChangedEvent(1, 2, keyless, after={"note": "n" * 500})
    decoded = json.loads(encoder.encode_row(row).value)
    assert decoded["handleKeyOnly"] is True
    assert "data" not in decoded


def test_key_only_message_still_too_large(table: TableInfo) -> None:
    encoder = _encoder(max_message_bytes=60, large_message_handle_option="handle-key-only")
    with pytest.raises(MessageTooLargeError, match="handle-key-only"):
        encoder.encode_row(_row(table, note="n" * 1000))


@pytest.mark.parametrize("raw_value", [False, True])
@pytest.mark.parametrize("kind", ["none", "lz4"])
def test_claim_check(table: TableInfo, raw_value: bool, kind: str) -> None:
    encoder = _encoder(
        max_message_bytes=450,
        large_message_handle_option="claim-check",
        claim_check_storage_uri="file:///var/claims/",
        claim_check_raw_value=raw_value,
        large_message_handle_compression=kind,
    )
    incompressible = random.Random(1).randbytes(600).hex()
    row = _row(table, note=incompressible, op="UPDATE")
    message = encoder.encode_row(row)
    location = f"file:///var/claims/{uuid.UUID(int=42)}.json"
    assert message.claim_check is not None
    assert message.claim_check[0] == location
    decoded = json.loads(decompress(kind, message.value))
    assert decoded["claimCheckLocation"] == location
    assert decoded["handleKeyOnly"] is True
    assert decoded["data"] == decoded["old"] == {"id": "7"}
    payload = message.claim_check[1]
    if not raw_value:
        stored = json.loads(payload)
        assert list(stored) == ["key", "value"] and stored["key"] is None
        payload = base64.b64decode(stored["value"])
    assert decompress(kind, payload) == JSONMarshaller("UTC").marshal_row(row, BUILD_TS)


def test_claim_check_needs_a_file_uri() -> None:
    with pytest.raises(ConfigError, match="s3://bucket"):
        _encoder(large_message_handle_option="claim-check", claim_check_storage_uri="s3://bucket")


def test_checksum_sits_before_data(table: TableInfo) -> None:
    row = _row(table)
    row.checksum = RowChecksum(version=1, corrupted=False, current=123, previous=0)
    assert b"checksum" not in _encoder().encode_row(row).value  # enable-row-checksum is off
    value = _encoder(enable_row_checksum=True).encode_row(row).value
    assert b'"schemaVersion":9,"checksum":{"version":1,"corrupted":false,"current":123,' in value
    assert b'"previous":0},"data":{' in value


def test_bad_row_names_table_and_column(table: TableInfo) -> None:
    row = RowChangedEvent(1, 2, table, after={"id": 7, "note": "x"})
    with pytest.raises(CodecError, match=r"shop\.orders: column 'at': missing"):
        _encoder().encode_row(row)
    row = RowChangedEvent(1, 2, table, after={"id": "7", "note": "x", "at": None})
    with pytest.raises(
        CodecError, match=r"shop\.orders: column 'id': cannot render bigint value '7'"
    ):
        _encoder().encode_row(row)


def test_new_schema_version_is_picked_up(table: TableInfo) -> None:
    encoder = _encoder()
    encoder.encode_row(_row(table))
    wider = make_table(
        "shop", "orders", 77, 10, [*table.columns, ColumnInfo("extra", "int")], table.indexes
    )
    image = {"id": 7, "note": "x", "at": None, "extra": 5}
    decoded = json.loads(encoder.encode_row(RowChangedEvent(1, 2, wider, after=image)).value)
    assert decoded["schemaVersion"] == 10
    assert decoded["data"]["extra"] == "5"


# --- Avro wiring (the marshaller itself is tested in tests/codec/simple/avro) --------------


def _avro_decode(reference_data: Path, value: bytes) -> Any:
    schema_path = reference_data / "formats" / "ticdc-simple" / "ticdc" / "message.json"
    schema = fastavro.parse_schema(json.loads(schema_path.read_text()))
    return fastavro.schemaless_reader(BytesIO(value), schema, return_record_name=True)


def test_avro_encoding_is_wired(table: TableInfo, reference_data: Path) -> None:
    pytest.importorskip("tisink.codec.simple.avro")
    encoder = _encoder(encoding_format="avro", large_message_handle_compression="snappy")
    value = decompress("snappy", encoder.encode_row(_row(table)).value)
    assert value[:3] == b"\x16\x06\x06"
    name, message = _avro_decode(reference_data, value)
    assert name == "com.pingcap.simple.avro.Message"
    assert message["type"] == "DML"
    payload = message["payload"][1]
    assert (payload["database"], payload["table"], payload["buildTs"]) == (
        "shop",
        "orders",
        BUILD_TS,
    )
    assert decompress("snappy", encoder.encode_checkpoint(9).value)[:3] == b"\x16\x00\x00"


def test_avro_handle_key_only(table: TableInfo, reference_data: Path) -> None:
    pytest.importorskip("tisink.codec.simple.avro")
    encoder = _encoder(
        encoding_format="avro", max_message_bytes=300, large_message_handle_option="handle-key-only"
    )
    _, message = _avro_decode(
        reference_data, encoder.encode_row(_row(table, note="n" * 1000)).value
    )
    payload = message["payload"][1]
    assert payload["handleKeyOnly"] is True
    assert set(payload["data"]) == {"id"}


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"encoding_format": "avro"},
        {"large_message_handle_compression": "lz4"},
        {"max_message_bytes": 450, "large_message_handle_option": "handle-key-only"},
        {
            "max_message_bytes": 450,
            "large_message_handle_option": "claim-check",
            "claim_check_storage_uri": "file:///var/claims/",
        },
    ],
)
def test_encode_rows_equals_encode_row_per_row(table: TableInfo, settings: dict[str, Any]) -> None:
    """The MQ sink's batch path writes what the per-row path writes, fallbacks included."""
    other = make_table("shop", "other", 78, 1, [ColumnInfo("id", "bigint", nullable=False)])
    rows = [
        _row(table, note="short", op="INSERT"),
        _row(table, note="n" * 1000, op="UPDATE"),
        RowChangedEvent(100, 200, other, after={"id": 5}),
        _row(table, note="x", op="DELETE"),
    ]
    batch = _encoder(**settings).encode_rows(rows)
    single = [_encoder(**settings).encode_row(row) for row in rows]
    assert batch.records == [(m.key, m.value) for m in single]
    assert batch.size == sum(m.length() for m in single)
    assert batch.claim_checks == [m.claim_check for m in single if m.claim_check]
    if settings.get("large_message_handle_option") == "claim-check":
        assert len(batch.claim_checks) == 1


def test_encode_rows_names_the_failing_row(table: TableInfo) -> None:
    bad = {"id": "eight", "note": "y", "at": "2024-01-02 03:04:05"}
    rows = [_row(table), RowChangedEvent(1, 2, table, after=bad)]
    with pytest.raises(CodecError, match="column 'id'"):
        _encoder().encode_rows(rows)
