"""SimpleDecoder (verify's reading of Simple): JSON and Avro payloads of the real encoder
normalise to the same messages."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tisink.codec import new_encoder
from tisink.codec.config import EncoderConfig
from tisink.codec.decoded import DDL, DML, WATERMARK, handle_key
from tisink.codec.errors import MessageDecodeError
from tisink.codec.simple.decoder import SimpleDecoder
from tisink.core.clock import FixedClock
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent
from tisink.model.table import TableInfo

TS = 447984084414103554


@pytest.fixture(scope="module")
def user_table(simple_golden: Path) -> TableInfo:
    boot = orjson.loads((simple_golden / "docs-examples" / "bootstrap.json").read_bytes())
    return TableInfo.from_dict({**boot["tableSchema"], "table": "user"})


def _events(table: TableInfo) -> list:
    row = {"id": 1, "name": "John Doe", "age": 25, "score": 90.5}
    changed = {**row, "score": 95.0}
    return [
        DDLEvent.bootstrap(table),
        DDLEvent(TS - 9, DDLType.ALTER, "ALTER TABLE `user` ...", table, table),
        RowChangedEvent(TS - 1, TS, table, after=row),
        RowChangedEvent(TS, TS + 1, table, before=row, after=changed),
        RowChangedEvent(TS + 1, TS + 2, table, before=changed),
    ]


def _encode(config: EncoderConfig, events: list, checkpoint: int) -> list[bytes]:
    encoder = new_encoder(config, FixedClock(1708923662983))
    values = []
    for event in events:
        if isinstance(event, DDLEvent):
            values.append(encoder.encode_ddl(event).value)
        else:
            values.append(encoder.encode_row(event).value)
    values.append(encoder.encode_checkpoint(checkpoint).value)
    return values


@pytest.mark.parametrize("encoding", ["json", "avro"])
@pytest.mark.parametrize("compression", ["none", "snappy", "lz4"])
def test_encoder_output_decodes_to_the_events(
    user_table: TableInfo, encoding: str, compression: str
) -> None:
    config = EncoderConfig(encoding_format=encoding, large_message_handle_compression=compression)
    values = _encode(config, _events(user_table), TS + 5)
    decoded = [SimpleDecoder(encoding, compression).decode_value(v) for v in values]
    assert [(m.kind, m.type, m.commit_ts) for m in decoded] == [
        ("BOOTSTRAP", "BOOTSTRAP", 0),
        (DDL, "ALTER", TS - 9),
        (DML, "INSERT", TS),
        (DML, "UPDATE", TS + 1),
        (DML, "DELETE", TS + 2),
        (WATERMARK, "WATERMARK", TS + 5),
    ]
    schema = decoded[0].table_schema
    assert schema is not None
    assert (schema.name, schema.version, schema.handle_key) == (
        "simple.user",
        user_table.version,
        ("id",),
    )
    assert decoded[1].table_schema == schema
    insert, update, delete = decoded[2:5]
    assert {m.table_name for m in decoded[2:5]} == {"simple.user"}
    assert {m.schema_version for m in decoded[2:5]} == {user_table.version}
    assert insert.data is not None
    assert insert.old is None
    assert update.data is not None
    assert update.old is not None
    assert delete.data is None
    assert delete.old is not None


def test_json_and_avro_agree_on_the_summary(user_table: TableInfo) -> None:
    events = _events(user_table)
    json_values = _encode(EncoderConfig(), events, TS + 5)
    avro_values = _encode(EncoderConfig(encoding_format="avro"), events, TS + 5)
    assert [SimpleDecoder("json").decode_value(v).summary() for v in json_values] == [
        SimpleDecoder("avro").decode_value(v).summary() for v in avro_values
    ]


def test_the_docs_examples_decode(simple_golden: Path) -> None:
    docs = simple_golden / "docs-examples"
    decoder = SimpleDecoder()
    alter = decoder.decode_value((docs / "ddl_alter.json").read_bytes())
    assert alter.table_schema is not None
    assert (alter.type, alter.table_schema.version) == ("ALTER", 447987408682614791)
    delete = decoder.decode_value((docs / "dml_delete.json").read_bytes())
    assert delete.summary() == (
        "DELETE simple.user commitTs=447984114259722243 schemaVersion=447984074911121426"
    )


def test_avro_junk_is_a_decode_error() -> None:
    with pytest.raises(MessageDecodeError, match="not a Simple avro message"):
        SimpleDecoder("avro").decode_value(b"\x16\x06\x06\xff")


def test_unknown_settings_are_rejected() -> None:
    with pytest.raises(MessageDecodeError, match="encoding-format 'protobuf'"):
        SimpleDecoder("protobuf")
    with pytest.raises(MessageDecodeError, match="compression 'zstd'"):
        SimpleDecoder("json", "zstd")


def test_handle_key_prefers_the_primary_index_then_a_not_null_unique_one() -> None:
    pk = {"name": "primary", "unique": True, "primary": True, "nullable": False, "columns": ["a"]}
    uk = {"name": "uk", "unique": True, "primary": False, "nullable": False, "columns": ["b", "c"]}
    nullable = {**uk, "name": "nuk", "nullable": True, "columns": ["d"]}
    plain = {**uk, "name": "k", "unique": False, "columns": ["e"]}
    assert handle_key([uk, pk]) == ("a",)
    assert handle_key([nullable, plain, uk]) == ("b", "c")
    assert handle_key([nullable, plain]) == ()
