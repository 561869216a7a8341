"""Every Open Protocol parameter: where TiCDC reads it and what it changes."""

from __future__ import annotations

import json

import pytest

from tests.codec.open.support import delete, encoder, events, insert, string_keyed, update
from tisink.codec.compression import decompress
from tisink.codec.errors import CodecError
from tisink.codec.open.decoder import OpenDecoder
from tisink.codec.open.options import OpenOptions
from tisink.model import ColumnInfo, IndexInfo, make_table
from tisink.sink import ChangefeedConfig, parse_sink_uri


def _values(enc, rows) -> list[dict]:
    return [json.loads(v) for r in enc.encode_rows(rows).records for _, v in events(*r)]


def test_a_ticdc_changefeed_file_and_the_uri_set_the_options() -> None:
    config = ChangefeedConfig.from_toml(
        "[sink]\n"
        'protocol = "open"\n'
        "only-output-updated-columns = true\n"
        "delete-only-output-handle-key-columns = true\n"
        "[sink.open]\n"
        "output-old-value = false\n"
        "[sink.kafka-config.codec-config]\n"
        "max-batch-size = 3\n"
    )
    assert config.encoder.options == OpenOptions(3, False, True, True)
    uri = parse_sink_uri(
        "kafka://h:9092/t?protocol=open&max-batch-size=7&open-output-old-value=true"
        "&only-output-updated-columns=false"
    )
    assert config.with_uri(uri).encoder.options == OpenOptions(7, True, False, True)


def test_defaults_are_ticdcs() -> None:
    assert OpenOptions() == OpenOptions(16, True, False, False)
    with pytest.raises(ValueError, match="max-batch-size"):
        OpenOptions(max_batch_size=0)


def test_default_max_batch_size_is_16() -> None:
    row = insert(string_keyed(), {"a": "aa", "b": "bb"})
    records = encoder().encode_rows([row] * 40).records
    assert [len(events(*r)) for r in records] == [16, 16, 8]


def test_output_old_value_false_drops_p() -> None:
    row = update(string_keyed(), {"a": "aa", "b": "bb"}, {"a": "aa", "b": "cc"})
    (value,) = _values(encoder(output_old_value=False), [row])
    assert list(value) == ["u"]
    (record,) = encoder(output_old_value=False).encode_rows([row]).records
    # nothing tells such an UPDATE from an INSERT, for TiCDC's consumer too
    assert OpenDecoder().decode(*record)[0].type == "INSERT"


def test_only_output_updated_columns_keeps_changed_pre_values() -> None:
    table = string_keyed()
    enc = encoder(only_output_updated_columns=True)
    (changed, same, to_null, from_null) = _values(
        enc,
        [
            update(table, {"a": "aa", "b": "bb"}, {"a": "aa", "b": "cc"}),
            update(table, {"a": "aa", "b": "bb"}, {"a": "aa", "b": "bb"}),
            update(table, {"a": "aa", "b": "bb"}, {"a": "aa", "b": None}),
            update(table, {"a": "aa", "b": None}, {"a": "aa", "b": "bb"}),
        ],
    )
    assert changed["p"] == {"b": {"t": 15, "f": 64, "v": "bb"}}
    assert list(changed["u"]) == ["a", "b"]
    assert same["p"] == {}
    assert to_null["p"] == {"b": {"t": 15, "f": 64, "v": "bb"}}
    assert from_null["p"] == {"b": {"t": 15, "f": 64, "v": None}}


def test_delete_only_output_handle_key_columns() -> None:
    row = delete(string_keyed(), {"a": "aa", "b": "bb"})
    (full,) = _values(encoder(), [row])
    (reduced,) = _values(encoder(delete_only_handle_key_columns=True), [row])
    assert list(full["d"]) == ["a", "b"]
    assert reduced == {"d": {"a": {"t": 15, "h": True, "f": 10, "v": "aa"}}}
    keyless = make_table("s", "nokey", 1, 1, [ColumnInfo("x", "int")])
    with pytest.raises(CodecError, match=r"s\.nokey.*handle key"):
        encoder(delete_only_handle_key_columns=True).encode_rows([delete(keyless, {"x": 1})])
    # INSERTs of such a table are still written whole
    assert _values(encoder(delete_only_handle_key_columns=True), [insert(keyless, {"x": 1})])


@pytest.mark.parametrize("kind", ["snappy", "lz4"])
def test_compression_applies_to_values_not_keys(kind: str) -> None:
    row = insert(string_keyed(), {"a": "aa", "b": "bb"})
    enc = encoder({"large_message_handle_compression": kind})
    (record,) = enc.encode_rows([row, row]).records
    ((key, value), _) = events(*record)
    assert key.startswith(b'{"ts":')
    assert json.loads(decompress(kind, value))["u"]["b"]["v"] == "bb"
    decoded = OpenDecoder(kind).decode(*record)
    assert [m.data for m in decoded] == [{"a": "aa", "b": "bb"}] * 2
    ddl_table = string_keyed()
    from tisink.model import DDLEvent, DDLType

    message = enc.encode_ddl(DDLEvent(5, DDLType.CREATE, "CREATE TABLE t (a int)", ddl_table))
    assert message is not None
    ((_, ddl_value),) = events(message.key, message.value)
    assert json.loads(decompress(kind, ddl_value)) == {"q": "CREATE TABLE t (a int)", "t": 3}
    checkpoint = enc.encode_checkpoint(9)
    assert checkpoint.value == bytes(8)


def _wide_table():
    columns = [
        ColumnInfo("id", "int", nullable=False),
        ColumnInfo("blob", "longblob"),
    ]
    return make_table("big", "rows", 3, 1, columns, [IndexInfo("primary", ("id",), True, True)])


def _big_row():
    return insert(_wide_table(), {"id": 7, "blob": "QUJD" * 400})


def test_handle_key_only_sends_the_key_columns_with_ohk() -> None:
    enc = encoder({"max_message_bytes": 1000, "large_message_handle_option": "handle-key-only"})
    (record,) = enc.encode_rows([_big_row()]).records
    ((key, value),) = events(*record)
    assert key.endswith(b'"t":1,"ohk":true}')
    assert json.loads(value) == {"u": {"id": {"t": 3, "h": True, "f": 11, "v": 7}}}
    keyless = make_table("big", "nokey", 4, 1, [ColumnInfo("blob", "longblob")])
    with pytest.raises(CodecError, match=r"big\.nokey"):
        enc.encode_rows([insert(keyless, {"blob": "QUJD" * 400})])


def test_handle_key_only_too_large_even_then_is_an_error() -> None:
    enc = encoder({"max_message_bytes": 100, "large_message_handle_option": "handle-key-only"})
    with pytest.raises(CodecError, match=r"big\.rows.*even the handle-key-only"):
        enc.encode_rows([_big_row()])


@pytest.mark.parametrize("raw", [False, True])
def test_claim_check_stores_the_framed_event_and_sends_its_location(raw: bool) -> None:
    config = {
        "max_message_bytes": 1000,
        "large_message_handle_option": "claim-check",
        "claim_check_storage_uri": "file:///tmp/cc/",
        "claim_check_raw_value": raw,
    }
    encoded = encoder(config).encode_rows([_big_row()])
    ((key, value),) = events(*encoded.records[0])
    location = "file:///tmp/cc/fixed-uuid.json"
    assert key.endswith(b'"t":1,"ohk":true,"ohk":false,"ccl":"%s"}' % location.encode())
    assert json.loads(value) == {"u": {"id": {"t": 3, "h": True, "f": 11, "v": 7}}}
    ((stored_at, payload),) = encoded.claim_checks
    assert stored_at == location
    full = encoder().encode_rows([_big_row()]).records[0]
    if raw:
        assert payload == full[1]
    else:
        import base64

        stored = json.loads(payload)
        assert list(stored) == ["key", "value"]
        assert (base64.b64decode(stored["key"]), base64.b64decode(stored["value"])) == full


def test_a_partitions_row_names_it_in_ptn() -> None:
    from tisink.model import RowChangedEvent

    table = string_keyed()
    row = RowChangedEvent(1, 2, table, None, {"a": "x", "b": None}, physical_table_id=101)
    ((key, _),) = events(*encoder().encode_rows([row]).records[0])
    assert key == b'{"ts":2,"scm":"test","tbl":"t","t":1,"ptn":101}'
