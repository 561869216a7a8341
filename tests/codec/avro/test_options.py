"""Every Avro parameter: where TiCDC reads it (sink URI, ``[sink]``,
``[sink.kafka-config.codec-config]``) and what it changes."""

from __future__ import annotations

import json

from tests.codec.avro.memory_registry import MemoryRegistry
from tests.codec.avro.support import encoder, insert
from tisink.codec.avro.options import AvroOptions
from tisink.model import ColumnInfo, IndexInfo, make_table
from tisink.sink import ChangefeedConfig, parse_sink_uri


def test_a_ticdc_changefeed_file_and_the_uri_set_the_options() -> None:
    config = ChangefeedConfig.from_toml(
        "[sink]\n"
        'protocol = "avro"\n'
        'schema-registry = "http://127.0.0.1:8081"\n'
        "[sink.kafka-config.codec-config]\n"
        'avro-decimal-handling-mode = "string"\n'
        "enable-tidb-extension = true\n"
        "avro-enable-watermark = true\n"
    )
    assert config.encoder.options == AvroOptions(
        "string", "long", True, True, "http://127.0.0.1:8081"
    )
    uri = parse_sink_uri(
        "kafka://h:9092/t?protocol=avro&avro-bigint-unsigned-handling-mode=string"
        "&schema-registry=http://127.0.0.1:8080/apis/ccompat/v7"
    )
    assert config.with_uri(uri).encoder.options == AvroOptions(
        "string", "string", True, True, "http://127.0.0.1:8080/apis/ccompat/v7"
    )


def test_defaults_are_ticdcs() -> None:
    assert AvroOptions() == AvroOptions("precise", "long", False, False, "")
    assert not AvroOptions(enable_watermark=True).watermarks


def _schema(**options: object) -> list[dict]:
    table = make_table(
        "db",
        "t",
        1,
        1,
        [
            ColumnInfo("id", "bigint", unsigned=True, nullable=False),
            ColumnInfo("d", "decimal", length=12, decimal=3),
        ],
        [IndexInfo("primary", ("id",), True, True)],
    )
    registry = MemoryRegistry()
    encoder(registry, **options).encode_rows([insert(table, {"id": 1, "d": "1.500"})])
    return json.loads(registry.schemas[1])["fields"]


def test_handling_modes_change_the_types() -> None:
    precise = _schema()
    assert precise[0]["type"]["type"] == "long"
    assert precise[1]["type"][1] == {
        "type": "bytes",
        "connect.parameters": {"tidb_type": "DECIMAL"},
        "logicalType": "decimal",
        "precision": 12,
        "scale": 3,
    }
    text = _schema(decimal_handling_mode="string", bigint_unsigned_handling_mode="string")
    assert text[0]["type"] == {
        "type": "string",
        "connect.parameters": {"tidb_type": "BIGINT UNSIGNED"},
    }
    assert text[1]["type"][1] == {"type": "string", "connect.parameters": {"tidb_type": "DECIMAL"}}
