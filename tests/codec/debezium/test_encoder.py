"""Encoder behaviour beyond the goldens: options, keys, DDL kinds, watermarks, sizes."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from tests.codec.debezium.support import NOW_MS, encoder, tiny_table
from tisink.codec.compression import decompress
from tisink.codec.config import EncoderConfig
from tisink.codec.debezium.encoder import DebeziumEncoder
from tisink.codec.debezium.options import DebeziumOptions
from tisink.codec.errors import CodecError, MessageTooLargeError
from tisink.codec.message import MessageType
from tisink.codec.registry import get_protocol
from tisink.core.clock import FixedClock
from tisink.core.errors import ConfigError
from tisink.core.options import build_options
from tisink.model import ColumnInfo, DDLEvent, DDLType, IndexInfo, RowChangedEvent, make_table
from tisink.sink import ChangefeedConfig, parse_sink_uri

TEXT = {"charset": "utf8mb4", "collate": "utf8mb4_bin"}


def _value(message: Any) -> dict[str, Any]:
    return json.loads(message.value)


def _source_fields(body: dict[str, Any]) -> list[str]:
    source = next(f for f in body["schema"]["fields"] if f.get("field") == "source")
    return [f["field"] for f in source["fields"]]


def test_registry_entry_and_defaults() -> None:
    spec = get_protocol("debezium")
    assert spec.encoding_formats == ("json",)
    assert spec.schema_files("json") == {}
    assert not spec.sends_bootstrap
    assert spec.default_options() == DebeziumOptions()
    assert DebeziumOptions().cluster_id == "default" and DebeziumOptions().output_old_value


def test_options_under_ticdc_keys() -> None:
    spec = get_protocol("debezium")
    raw = {
        "debezium-disable-schema": "true",
        "output-old-value": False,
        "enable-tidb-extension": "1",
        "debezium-include-start-ts": "true",
        "cluster-id": "east",
    }
    options = build_options(spec.options_type, spec.options, raw, "test")
    assert options == DebeziumOptions(True, False, True, True, "east")
    where = {o.key: (o.tables, o.uri) for o in spec.options}
    assert where["debezium-disable-schema"] == ((("sink",),), True)
    assert where["output-old-value"] == ((("sink", "debezium"),), False)
    assert where["enable-tidb-extension"] == ((("sink", "kafka-config", "codec-config"),), True)
    assert where["include-start-ts"] == ((("sink", "debezium"),), False)
    with pytest.raises(ConfigError):
        build_options(spec.options_type, spec.options, {"cluster-id": ""}, "test")


def test_encoder_rejects_other_options() -> None:
    with pytest.raises(ConfigError):
        EncoderConfig(protocol="debezium", options=object())


def test_messages_are_key_and_value_one_per_row_without_headers() -> None:
    enc = encoder()
    table = tiny_table(False)
    rows = [RowChangedEvent(0, 5, table, after={"tiny": i}) for i in range(3)]
    encoded = enc.encode_rows(rows)
    assert enc.message_per_row
    assert [json.loads(k)["payload"] for k, _ in encoded.records] == [{"tiny": i} for i in range(3)]
    assert encoded.size == sum(len(k) + len(v) for k, v in encoded.records)


def test_delete_key_comes_from_the_old_row_and_update_key_from_the_new() -> None:
    enc = encoder(disable_schema=True)
    table = tiny_table(False)
    update = enc.encode_row(RowChangedEvent(0, 5, table, before={"tiny": 2}, after={"tiny": 3}))
    delete = enc.encode_row(RowChangedEvent(0, 5, table, before={"tiny": 2}))
    assert update.key == b'{"payload":{"tiny":3}}'
    assert delete.key == b'{"payload":{"tiny":2}}'


def _keyed_table(indexes: list[IndexInfo]) -> Any:
    columns = [
        ColumnInfo("a", "int", nullable=False),
        ColumnInfo("b", "int", nullable=False),
        ColumnInfo("c", "int", nullable=True),
        ColumnInfo("d", "varchar", length=5, nullable=False, **TEXT),
    ]
    return make_table("db", "k", 3, 1, columns, indexes)


@pytest.mark.parametrize(
    ("indexes", "key"),
    [
        ([IndexInfo("primary", ("d", "a"), True, True)], {"a": 1, "d": "x"}),
        (
            [IndexInfo("u1", ("a", "b"), True), IndexInfo("u2", ("d",), True)],
            {"d": "x"},  # the NOT NULL unique key with the fewest columns
        ),
        ([IndexInfo("u1", ("c",), True), IndexInfo("u2", ("b", "a"), True)], {"a": 1, "b": 2}),
        ([IndexInfo("u1", ("c",), True)], {}),  # a nullable unique key is no handle
        ([], {}),
    ],
)
def test_key_is_the_handle_key_in_column_order(indexes: list[IndexInfo], key: dict) -> None:
    table = _keyed_table(indexes)
    row = RowChangedEvent(0, 5, table, after={"a": 1, "b": 2, "c": None, "d": "x"})
    body = json.loads(encoder().encode_row(row).key)
    assert body["payload"] == key
    assert [f["field"] for f in body["schema"]["fields"]] == list(key)


def test_output_old_value_false_drops_before_of_updates_only() -> None:
    table = tiny_table(False)
    enc = encoder(disable_schema=True, output_old_value=False)
    update = _value(enc.encode_row(RowChangedEvent(0, 5, table, {"tiny": 1}, {"tiny": 2})))
    delete = _value(enc.encode_row(RowChangedEvent(0, 5, table, {"tiny": 1})))
    assert "before" not in update["payload"]
    assert delete["payload"]["before"] == {"tiny": 1}


def test_tidb_extension_declares_commit_ts_and_cluster_id_in_the_source_schema() -> None:
    row = RowChangedEvent(0, 5, tiny_table(False), after={"tiny": 1})
    plain = _source_fields(_value(encoder().encode_row(row)))
    extended = _source_fields(_value(encoder(enable_tidb_extension=True).encode_row(row)))
    assert plain[-1] == "query"
    assert extended == [*plain, "commit_ts", "cluster_id"]


def test_include_start_ts_in_rows_only() -> None:
    enc = encoder(include_start_ts=True, enable_tidb_extension=True)
    body = _value(enc.encode_row(RowChangedEvent(7, 9 << 18, tiny_table(False), after={"tiny": 1})))
    source = body["payload"]["source"]
    assert list(source)[-3:] == ["commit_ts", "start_ts", "cluster_id"]
    assert (source["start_ts"], source["ts_ms"], source["commit_ts"]) == (7, 9, 9 << 18)
    assert _source_fields(body)[-1] == "start_ts"
    watermark = enc.encode_checkpoint(11)
    ddl = enc.encode_ddl(DDLEvent(12, DDLType.CREATE, "CREATE TABLE t1", tiny_table(False)))
    assert watermark is not None and ddl is not None
    assert b"start_ts" not in watermark.value and b"start_ts" not in ddl.value


def test_cluster_id_names_source_and_sanitized_schemas() -> None:
    enc = encoder(cluster_id="east-1")
    message = enc.encode_row(RowChangedEvent(0, 5, tiny_table(False), after={"tiny": 1}))
    body = _value(message)
    assert body["payload"]["source"]["name"] == "east-1"
    assert body["schema"]["name"] == "east_1.test.table1.Envelope"
    assert json.loads(message.key)["schema"]["name"] == "east_1.test.table1.Key"


def test_watermark_only_with_the_tidb_extension() -> None:
    assert encoder().encode_checkpoint(3) is None
    message = encoder(enable_tidb_extension=True).encode_checkpoint(7 << 18 | 1)
    assert message is not None and message.type is MessageType.WATERMARK
    body = _value(message)
    assert body["payload"]["op"] == "m" and body["payload"]["source"]["commit_ts"] == 7 << 18 | 1
    assert body["payload"]["source"]["ts_ms"] == 7
    assert _source_fields(body)[-2:] == ["commit_ts", "cluster_id"]
    assert json.loads(message.key or b"") == {
        "payload": {},
        "schema": {
            "type": "struct",
            "name": "test_cluster.watermark.Key",
            "optional": False,
            "fields": [],
        },
    }


def test_bootstrap_is_never_sent() -> None:
    enc = encoder()
    assert enc.encode_bootstrap(tiny_table(False)) is None
    assert enc.encode_ddl(DDLEvent.bootstrap(tiny_table(False))) is None


def _ddl(kind: DDLType, query: str, table: Any = None, pre: Any = None) -> dict[str, Any] | None:
    message = encoder(disable_schema=True).encode_ddl(DDLEvent(9, kind, query, table, pre))
    return None if message is None else _value(message)["payload"]


def test_ddl_change_types() -> None:
    t = tiny_table(False)
    unkeyed = make_table("test", "table1", 1, 2, [ColumnInfo("tiny", "tinyint")])
    assert (
        _ddl(DDLType.ALTER, "ALTER TABLE t ADD c INT", t, t)["tableChanges"][0]["type"] == "ALTER"
    )
    assert (
        _ddl(DDLType.CINDEX, "CREATE INDEX i ON t (tiny)", t, t)["tableChanges"][0]["type"]
        == "ALTER"
    )
    dropped = _ddl(DDLType.DINDEX, "DROP INDEX i ON t", t, t)
    assert dropped["tableChanges"][0]["type"] == "DROP" and dropped["tableChanges"][0]["table"]
    no_pk = _ddl(DDLType.DINDEX, "ALTER TABLE t DROP PRIMARY KEY", unkeyed, t)
    assert no_pk["tableChanges"][0]["type"] == "ALTER"
    assert no_pk["tableChanges"][0]["table"]["primaryKeyColumnNames"] == []
    assert _ddl(DDLType.TRUNCATE, "TRUNCATE TABLE t", t, t)["tableChanges"] == []


@pytest.mark.parametrize(
    ("query", "db", "change"),
    [
        ("CREATE DATABASE IF NOT EXISTS `shop`", "shop", "CREATE"),
        ("DROP SCHEMA metrics", "metrics", "DROP"),
        ("ALTER DATABASE shop CHARACTER SET utf8mb4", "shop", "ALTER"),
    ],
)
def test_database_statements(query: str, db: str, change: str) -> None:
    payload = _ddl(DDLType.QUERY, query)
    assert payload is not None
    assert (payload["databaseName"], payload["tableChanges"]) == (db, [])
    assert payload["source"]["db"] == db and payload["source"]["table"] == ""


def test_unsupported_ddls_are_dropped_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    t = tiny_table(False)
    with caplog.at_level(logging.WARNING, logger="tisink.codec.debezium.ddl"):
        assert _ddl(DDLType.QUERY, "CREATE SEQUENCE s") is None
        assert (
            _ddl(DDLType.CINDEX, "ALTER TABLE t ADD FOREIGN KEY (a) REFERENCES p (a)", t, t) is None
        )
    assert len(caplog.records) == 2


def test_ddl_columns_describe_types() -> None:
    columns = [
        ColumnInfo("i", "int", length=10, unsigned=True, nullable=False),
        ColumnInfo("d", "double", length=10, decimal=2),
        ColumnInfo("v", "varchar", length=20, default="x", **TEXT),
        ColumnInfo("e", "enum", elements=("a", "b"), **TEXT),
        ColumnInfo("ts", "timestamp", decimal=3, default="CURRENT_TIMESTAMP"),
        ColumnInfo("b", "bit", length=10, unsigned=True, default=5),
    ]
    table = make_table("db", "t", 1, 1, columns, [IndexInfo("primary", ("i",), True, True)])
    payload = _ddl(DDLType.CREATE, "CREATE TABLE t (...)", table)
    assert payload is not None
    described = {c["name"]: c for c in payload["tableChanges"][0]["table"]["columns"]}
    assert described["i"]["typeName"] == "INT UNSIGNED" and described["i"]["length"] is None
    assert described["d"]["typeExpression"] == "DOUBLE(10,2)" and described["d"]["scale"] == 2
    assert described["v"]["charsetName"] == "utf8mb4" and described["v"]["length"] == 20
    assert described["v"]["defaultValueExpression"] == "x" and described["v"]["jdbcType"] == 12
    assert described["e"]["enumValues"] == ["'a'", "'b'"] and described["e"]["length"] == 1
    assert described["ts"]["defaultValueExpression"] == "1970-01-01 00:00:00"
    assert described["ts"]["jdbcType"] == 2014 and described["ts"]["length"] == 3
    assert described["b"]["defaultValueExpression"] == "0000000101"
    assert [c["position"] for c in described.values()] == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("compression", ["snappy", "lz4"])
def test_keys_and_values_are_compressed(compression: str) -> None:
    row = RowChangedEvent(0, 5, tiny_table(False), after={"tiny": 1})
    plain = encoder().encode_row(row)
    config = EncoderConfig(
        protocol="debezium",
        time_zone="UTC",
        large_message_handle_compression=compression,
        options=DebeziumOptions(cluster_id="test_cluster"),
    )
    packed = DebeziumEncoder(config, FixedClock(NOW_MS)).encode_row(row)
    assert decompress(compression, packed.value) == plain.value
    assert decompress(compression, packed.key or b"") == plain.key


def test_a_message_over_max_message_bytes_is_an_error() -> None:
    table = make_table("db", "t", 1, 1, [ColumnInfo("x", "text", **TEXT)], [])
    config = EncoderConfig(protocol="debezium", max_message_bytes=500, options=DebeziumOptions())
    enc = DebeziumEncoder(config)
    with pytest.raises(MessageTooLargeError, match=r"db\.t"):
        enc.encode_rows([RowChangedEvent(0, 5, table, after={"x": "y" * 600})])


def test_a_bad_value_names_the_table_and_the_column() -> None:
    table = make_table("db", "t", 1, 1, [ColumnInfo("n", "int"), ColumnInfo("d", "date")], [])
    with pytest.raises(CodecError, match=r"db\.t.*column 'n'"):
        encoder().encode_row(RowChangedEvent(0, 5, table, after={"n": "x", "d": None}))
    with pytest.raises(CodecError, match="column 'd': missing"):
        encoder().encode_row(RowChangedEvent(0, 5, table, after={"n": 1}))


def test_virtual_columns_are_declared_once_in_place_and_never_written() -> None:
    columns = [
        ColumnInfo("id", "int", nullable=False),
        ColumnInfo("doubled", "int", generated="virtual"),
        ColumnInfo("note", "varchar", length=5, **TEXT),
    ]
    table = make_table("db", "g", 1, 1, columns, [IndexInfo("primary", ("id",), True, True)])
    body = _value(encoder().encode_row(RowChangedEvent(0, 5, table, after={"id": 1, "note": "n"})))
    assert [f["field"] for f in body["schema"]["fields"][1]["fields"]] == ["id", "doubled", "note"]
    assert body["payload"]["after"] == {"id": 1, "note": "n"}


def test_a_ticdc_changefeed_file_and_the_uri_set_the_options() -> None:
    config = ChangefeedConfig.from_toml(
        'cluster-id = "east"\n'
        "[sink]\n"
        'protocol = "debezium"\n'
        "debezium-disable-schema = true\n"
        "[sink.debezium]\n"
        "output-old-value = false\n"
        "include-start-ts = true\n"
        "[sink.kafka-config.codec-config]\n"
        "enable-tidb-extension = true\n"
    )
    assert config.encoder.options == DebeziumOptions(True, False, True, True, "east")
    uri = parse_sink_uri(
        "kafka://h:9092/t?protocol=debezium&debezium-disable-schema=false"
        "&debezium-include-start-ts=false&enable-tidb-extension=false"
    )
    assert config.with_uri(uri).encoder.options == DebeziumOptions(
        False, False, False, False, "east"
    )


# --- newarch=false: the classic architecture's bytes (pingcap/tiflow) ----------------------------


def test_newarch_is_a_changefeed_key_and_a_uri_parameter_defaulting_to_the_new_one() -> None:
    assert DebeziumOptions().newarch
    config = ChangefeedConfig.from_toml('newarch = false\n[sink]\nprotocol = "debezium"\n')
    assert not config.encoder.options.newarch
    uri = parse_sink_uri("kafka://h:9092/t?protocol=debezium&newarch=true")
    assert config.with_uri(uri).encoder.options.newarch
    spec = get_protocol("debezium")
    assert {o.key: (o.tables, o.uri) for o in spec.options}["newarch"] == (((),), True)


def test_classic_has_no_start_ts() -> None:
    spec = get_protocol("debezium")
    raw = {"newarch": "false", "debezium-include-start-ts": "true"}
    with pytest.raises(ConfigError, match="start_ts"):
        build_options(spec.options_type, spec.options, raw, "test")


def test_classic_never_declares_the_tidb_source_fields() -> None:
    """tiflow's ``writeSourceSchema`` has no ``commit_ts``/``cluster_id`` entries (ticdc adds
    them with ``enable-tidb-extension``, d220ee9b8); the payload carries both either way."""
    row = RowChangedEvent(0, 5, tiny_table(False), after={"tiny": 1})
    enc = encoder(enable_tidb_extension=True, newarch=False)
    body = _value(enc.encode_row(row))
    assert _source_fields(body)[-1] == "query"
    assert list(body["payload"]["source"])[-2:] == ["commit_ts", "cluster_id"]
    assert body["schema"]["fields"][1]["fields"][0]["tidb_type"] == "tinyint"
    watermark = enc.encode_checkpoint(11)
    ddl = enc.encode_ddl(DDLEvent(12, DDLType.CREATE, "CREATE TABLE t1", tiny_table(False)))
    assert watermark is not None and ddl is not None
    for message in (watermark, ddl):
        assert _source_fields(_value(message))[-1] == "query"
        assert b'"field":"commit_ts"' not in message.value
    new = encoder(enable_tidb_extension=True)
    new_watermark = new.encode_checkpoint(11)
    assert new_watermark is not None
    assert _source_fields(_value(new_watermark))[-2:] == ["commit_ts", "cluster_id"]
    # without the extension the two architectures write the same bytes
    for newarch in (True, False):
        assert encoder(newarch=newarch).encode_row(row).value == encoder().encode_row(row).value


def test_classic_declares_virtual_columns_after_the_stored_ones() -> None:
    """tiflow lists the row's stored columns, then the table's virtual ones."""
    columns = [
        ColumnInfo("id", "int", nullable=False),
        ColumnInfo("doubled", "int", generated="virtual"),
        ColumnInfo("note", "varchar", length=5, **TEXT),
    ]
    table = make_table("db", "g", 1, 1, columns, [IndexInfo("primary", ("id",), True, True)])
    row = RowChangedEvent(0, 5, table, after={"id": 1, "note": "n"})
    body = _value(encoder(newarch=False).encode_row(row))
    for image in body["schema"]["fields"][:2]:
        assert [f["field"] for f in image["fields"]] == ["id", "note", "doubled"]
    assert body["payload"]["after"] == {"id": 1, "note": "n"}
