"""The Avro encoder's TiCDC behaviour: keys, DELETE, subjects, schema evolution, markers and
what it refuses."""

from __future__ import annotations

import io
import json

import fastavro
import pytest

from tests.codec.avro.memory_registry import MemoryRegistry
from tests.codec.avro.support import TS, delete, encoder, insert, update
from tisink.codec.avro import wire
from tisink.codec.avro.decoder import AvroDecoder
from tisink.codec.avro.encoder import TOMBSTONE, AvroEncoder, subject
from tisink.codec.avro.options import AvroOptions
from tisink.codec.config import EncoderConfig
from tisink.codec.encoder import use_router_topics
from tisink.codec.errors import CodecError, MessageTooLargeError
from tisink.codec.message import MessageType
from tisink.core.errors import ConfigError
from tisink.eventsink.router import DispatchRule, EventRouter
from tisink.model import ColumnInfo, DDLEvent, DDLType, IndexInfo, TableInfo, make_table


def _table(version: int = 1, extra: bool = False) -> TableInfo:
    cols = [
        ColumnInfo("id", "bigint", nullable=False),
        ColumnInfo("name", "varchar", "utf8mb4", "utf8mb4_bin", 20),
    ]
    if extra:
        cols.append(ColumnInfo("age", "int", default="7"))
    return make_table("db", "t", 5, version, cols, [IndexInfo("primary", ("id",), True, True)])


def _datum(registry: MemoryRegistry, data: bytes) -> dict:
    schema_id, payload = wire.split(data)
    parsed = fastavro.parse_schema(json.loads(registry.schema_by_id(schema_id)))
    return fastavro.schemaless_reader(io.BytesIO(payload), parsed, None)  # type: ignore[return-value]


def test_insert_has_a_handle_key_and_the_whole_row() -> None:
    registry = MemoryRegistry()
    key, value = (
        encoder(registry).encode_rows([insert(_table(), {"id": 1, "name": "a"})]).records[0]
    )
    assert key is not None
    assert key[:5] == wire.header(1) and value[:5] == wire.header(2)
    assert _datum(registry, key) == {"id": 1}
    assert _datum(registry, value) == {"id": 1, "name": "a"}
    assert registry.subjects == {"db_t-key": [1], "db_t-value": [2]}


def test_delete_is_the_key_and_an_empty_value() -> None:
    registry = MemoryRegistry()
    enc = encoder(registry, enable_tidb_extension=True)
    key, value = enc.encode_rows([delete(_table(), {"id": 3, "name": "x"})]).records[0]
    assert value == TOMBSTONE
    assert _datum(registry, key or b"") == {"id": 3}
    assert list(registry.subjects) == ["db_t-key"]


def test_update_is_its_new_image_with_op_u() -> None:
    registry = MemoryRegistry()
    enc = encoder(registry, enable_tidb_extension=True)
    row = update(_table(), {"id": 1, "name": "a"}, {"id": 1, "name": "b"})
    _, value = enc.encode_rows([row]).records[0]
    assert _datum(registry, value) == {
        "id": 1,
        "name": "b",
        "_tidb_op": "u",
        "_tidb_commit_ts": TS,
        "_tidb_commit_physical_time": TS >> 18,
    }


def test_a_table_without_handle_key_has_a_null_key() -> None:
    table = make_table("db", "nokey", 6, 1, [ColumnInfo("a", "int")])
    key, value = encoder().encode_rows([insert(table, {"a": None})]).records[0]
    assert key is None and value[0] == 0


def test_subjects_follow_the_topic_with_dots_made_underscores() -> None:
    registry = MemoryRegistry()
    enc = encoder(registry)
    enc.use_topics(lambda schema, table: f"cdc.{schema}.{table}")
    enc.encode_rows([insert(_table(), {"id": 1, "name": "a"})])
    assert list(registry.subjects) == ["cdc_db_t-key", "cdc_db_t-value"]
    assert subject("a.b", "-value") == "a_b-value"


def test_a_new_table_version_registers_a_new_schema_version_and_old_ids_still_decode() -> None:
    registry = MemoryRegistry()
    enc = encoder(registry)
    old = enc.encode_rows([insert(_table(1), {"id": 1, "name": "a"})]).records[0]
    again = enc.encode_rows([insert(_table(1), {"id": 2, "name": "b"})]).records[0]
    assert registry.requests == 2  # cached per subject and table version
    new = enc.encode_rows([insert(_table(2, True), {"id": 3, "name": "c", "age": 9})]).records[0]
    assert registry.subjects == {"db_t-key": [1], "db_t-value": [2, 3]}
    assert registry.requests == 4  # the key schema is re-registered too, and found
    assert wire.split(again[1])[0] == 2 and wire.split(new[1])[0] == 3
    decoder = AvroDecoder(registry=registry)
    assert decoder.decode(*old)[0].data == {"id": 1, "name": "a"}
    assert decoder.decode(*new)[0].data == {"id": 3, "name": "c", "age": 9}
    field = json.loads(registry.schema_by_id(3))["fields"][2]
    assert field == {
        "default": 7,
        "name": "age",
        "type": [{"type": "int", "connect.parameters": {"tidb_type": "INT"}}, "null"],
    }


def test_ddl_and_checkpoint_markers_need_extension_and_watermark() -> None:
    ddl = DDLEvent(TS, DDLType.CREATE, "CREATE TABLE t (id bigint primary key)", _table())
    for options in ({}, {"enable_watermark": True}, {"enable_tidb_extension": True}):
        enc = encoder(**options)
        assert enc.encode_ddl(ddl) is None and enc.encode_checkpoint(TS) is None
    enc = encoder(enable_tidb_extension=True, enable_watermark=True)
    message = enc.encode_ddl(ddl)
    assert message is not None and message.key is None and message.type is MessageType.DDL
    assert message.value[:1] == b"\x01"
    assert json.loads(message.value[1:]) == {
        "query": "CREATE TABLE t (id bigint primary key)",
        "type": 3,
        "schema": "db",
        "table": "t",
        "commitTs": TS,
    }
    checkpoint = enc.encode_checkpoint(1591943372224)
    assert checkpoint is not None and checkpoint.key is None
    assert checkpoint.value == b"\x02" + (1591943372224).to_bytes(8, "big")
    assert enc.encode_bootstrap(_table()) is None
    assert enc.encode_ddl(DDLEvent.bootstrap(_table())) is None


def test_avro_needs_a_schema_registry() -> None:
    config = EncoderConfig(protocol="avro")
    with pytest.raises(ConfigError, match='requires parameter "schema-registry"'):
        AvroEncoder(config)
    with pytest.raises(ConfigError, match='requires parameter "schema-registry"'):
        config.spec.new_encoder(config, None)  # type: ignore[arg-type]


def test_row_checksum_needs_extension_and_string_modes() -> None:
    with pytest.raises(ConfigError, match="row level checksum"):
        encoder(config={"enable_row_checksum": True}, enable_tidb_extension=True)
    encoder(
        config={"enable_row_checksum": True},
        enable_tidb_extension=True,
        decimal_handling_mode="string",
        bigint_unsigned_handling_mode="string",
    )


def test_options_refuse_unknown_modes() -> None:
    with pytest.raises(ValueError, match="avro-decimal-handling-mode"):
        AvroOptions(decimal_handling_mode="double")
    with pytest.raises(ValueError, match="avro-bigint-unsigned-handling-mode"):
        AvroOptions(bigint_unsigned_handling_mode="int")


def test_a_message_over_max_message_bytes_is_refused() -> None:
    enc = encoder(config={"max_message_bytes": 60})
    with pytest.raises(MessageTooLargeError, match=r"db\.t"):
        enc.encode_rows([insert(_table(), {"id": 1, "name": "x" * 20})])


def test_a_bad_value_names_table_and_column() -> None:
    with pytest.raises(CodecError, match=r"db\.t: column 'id'"):
        encoder().encode_rows([insert(_table(), {"id": "one", "name": "a"})])
    with pytest.raises(CodecError, match="missing from the row image"):
        encoder().encode_rows([insert(_table(), {"id": 1})])


def test_the_protocol_is_registered_with_ticdc_topic_rules() -> None:
    spec = EncoderConfig(protocol="avro").spec
    assert spec.name == "avro" and spec.avro_topic_rules and spec.new_decoder is not None
    assert spec.required_options == ("schema-registry",)
    assert [o.key for o in spec.options] == [
        "avro-decimal-handling-mode",
        "avro-bigint-unsigned-handling-mode",
        "enable-tidb-extension",
        "avro-enable-watermark",
        "schema-registry",
        "newarch",
    ]


def test_the_sink_s_router_names_the_subjects() -> None:
    router = EventRouter(
        "default-topic",
        [DispatchRule(matcher=("db.*",), topic="tidb_{schema}_{table}")],
        avro_topic_rules=True,
    )
    registry = MemoryRegistry()
    enc = encoder(registry)
    use_router_topics(enc, router.topic_for_table)
    enc.encode_rows([insert(_table(), {"id": 1, "name": "a"})])
    assert list(registry.subjects) == ["tidb_db_t-key", "tidb_db_t-value"]
