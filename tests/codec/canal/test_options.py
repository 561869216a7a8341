"""Every canal-json parameter, under TiCDC's names and in TiCDC's places."""

from __future__ import annotations

import base64
import hashlib

import orjson
import pytest

from tests.codec.canal.support import COMMIT_TS, encoder, message, row, table_of
from tisink.codec.canal.options import CanalOptions
from tisink.codec.compression import decompress
from tisink.codec.errors import MessageTooLargeError
from tisink.core.errors import ConfigError
from tisink.core.framing import RECORD_OVERHEAD
from tisink.model.events import DDLEvent, DDLType
from tisink.sink import ChangefeedConfig, parse_sink_uri

INT = {"mysqlType": "int", "length": 11}
TEXT = {"mysqlType": "varchar", "length": 64, "charset": "utf8mb4"}
TABLE = table_of([("id", INT), ("name", TEXT), ("note", TEXT), ("n", INT)])
BEFORE = {"id": 1, "name": "a", "note": None, "n": 5}
AFTER = {"id": 1, "name": "b", "note": "x", "n": 5}


def test_tidb_extension_adds_commit_ts_and_watermarks() -> None:
    plain, extended = encoder(), encoder({"enable-tidb-extension": True})
    assert "_tidb" not in message(plain, row(TABLE, AFTER))
    assert message(extended, row(TABLE, AFTER))["_tidb"] == {"commitTs": COMMIT_TS}
    assert plain.encode_checkpoint(COMMIT_TS) is None
    watermark = extended.encode_checkpoint(COMMIT_TS)
    assert watermark is not None and watermark.key is None
    assert orjson.loads(watermark.value)["_tidb"] == {"watermarkTs": COMMIT_TS}
    ddl = DDLEvent(COMMIT_TS, DDLType.ERASE, "DROP TABLE t", None, TABLE)
    built = extended.encode_ddl(ddl)
    assert built is not None
    body = orjson.loads(built.value)
    assert (body["database"], body["table"], body["type"]) == ("test", "t", "ERASE")
    assert body["_tidb"] == {"commitTs": COMMIT_TS}
    assert extended.encode_bootstrap(TABLE) is None
    assert extended.encode_ddl(DDLEvent.bootstrap(TABLE)) is None


def test_update_carries_every_old_column_by_default() -> None:
    body = message(encoder(), row(TABLE, AFTER, BEFORE))
    assert body["old"] == [{"id": "1", "name": "a", "note": None, "n": "5"}]
    assert body["data"] == [{"id": "1", "name": "b", "note": "x", "n": "5"}]


@pytest.mark.parametrize("key", ["only-output-updated-columns", "content-compatible"])
def test_only_updated_columns_keep_the_changed_old_values(key: str) -> None:
    body = message(encoder({key: True}), row(TABLE, AFTER, BEFORE))
    assert body["old"] == [{"name": "a", "note": None}]
    assert body["data"] == [{"id": "1", "name": "b", "note": "x", "n": "5"}]
    unchanged = message(encoder({key: True}), row(TABLE, AFTER, AFTER))
    assert unchanged["old"] == [{}]


def test_content_compatible_writes_full_mysql_types() -> None:
    assert message(encoder(), row(TABLE, AFTER))["mysqlType"]["name"] == "varchar"
    body = message(encoder({"content-compatible": True}), row(TABLE, AFTER))
    assert body["mysqlType"] == {"id": "int(11)", "name": "varchar(64)", "note": "varchar(64)",
                                 "n": "int(11)"}  # fmt: skip


def test_delete_only_handle_key_columns() -> None:
    codec = encoder({"delete-only-output-handle-key-columns": True, "enable-tidb-extension": True})
    body = message(codec, row(TABLE, None, BEFORE))
    assert body["data"] == [{"id": "1"}]
    assert body["sqlType"] == {"id": 4} and body["mysqlType"] == {"id": "int"}
    assert body["_tidb"] == {"commitTs": COMMIT_TS}  # no onlyHandleKey marker
    assert message(codec, row(TABLE, AFTER))["data"][0]["name"] == "b"
    unique = table_of([("id", INT), ("code", TEXT)], primary=(), unique=("code",))
    body = message(codec, row(unique, None, {"id": 3, "code": "k"}))
    assert body["data"] == [{"code": "k"}] and body["pkNames"] == []


NOISE = "".join(hashlib.sha256(b"%d" % i).hexdigest() for i in range(20))
"""1280 characters that no compression brings under 400 bytes."""
BIG = {**AFTER, "note": NOISE}


def test_large_message_none_fails_naming_the_table() -> None:
    with pytest.raises(MessageTooLargeError, match=r"test\.t.*max-message-bytes 300"):
        encoder(max_message_bytes=300).encode_rows([row(TABLE, BIG)])


def test_large_message_handle_key_only() -> None:
    codec = encoder(
        {"enable-tidb-extension": True},
        max_message_bytes=400,
        large_message_handle_option="handle-key-only",
    )
    encoded = codec.encode_rows([row(TABLE, BIG), row(TABLE, AFTER)])
    first, second = (orjson.loads(value) for _, value in encoded.records)
    assert first["data"] == [{"id": "1"}] and first["sqlType"] == {"id": 4}
    assert first["_tidb"] == {"commitTs": COMMIT_TS, "onlyHandleKey": True}
    assert second["data"][0]["note"] == "x"
    assert encoded.size == sum(len(v) for _, v in encoded.records)
    assert all(len(v) + RECORD_OVERHEAD <= 400 for _, v in encoded.records)


@pytest.mark.parametrize("raw", [False, True])
@pytest.mark.parametrize("compression", ["none", "lz4"])
def test_large_message_claim_check(raw: bool, compression: str) -> None:
    codec = encoder(
        {"enable-tidb-extension": True},
        max_message_bytes=400,
        large_message_handle_option="claim-check",
        claim_check_storage_uri="file:///tmp/claims/",
        claim_check_raw_value=raw,
        large_message_handle_compression=compression,
    )
    full = encoder({"enable-tidb-extension": True}).encode_rows([row(TABLE, BIG)]).records[0][1]
    encoded = codec.encode_rows([row(TABLE, BIG)])
    body = orjson.loads(decompress(compression, encoded.records[0][1]))
    location = "file:///tmp/claims/claim-0.json"
    assert body["_tidb"] == {"commitTs": COMMIT_TS, "claimCheckLocation": location}
    assert body["data"] == [{"id": "1"}]
    ((where, payload),) = encoded.claim_checks
    assert where == location
    stored = payload if raw else base64.b64decode(orjson.loads(payload)["value"])
    assert decompress(compression, stored) == full
    if not raw:
        assert orjson.loads(payload)["key"] is None


def test_a_fallback_message_still_too_large_fails() -> None:
    wide = table_of([("id", TEXT), ("v", TEXT)])
    codec = encoder(
        {"enable-tidb-extension": True},
        max_message_bytes=300,
        large_message_handle_option="handle-key-only",
    )
    with pytest.raises(MessageTooLargeError, match="even the handle-key-only message"):
        codec.encode_rows([row(wide, {"id": "k" * 400, "v": "v"})])


def test_large_message_handling_needs_the_tidb_extension() -> None:
    with pytest.raises(ConfigError, match="needs enable-tidb-extension"):
        encoder(large_message_handle_option="handle-key-only")
    with pytest.raises(ConfigError, match="not supported"):
        encoder(
            {"enable-tidb-extension": True},
            large_message_handle_option="claim-check",
            claim_check_storage_uri="s3://bucket/x",
        )


@pytest.mark.parametrize("compression", ["snappy", "lz4"])
def test_every_message_is_compressed(compression: str) -> None:
    plain = encoder({"enable-tidb-extension": True})
    packed = encoder({"enable-tidb-extension": True}, large_message_handle_compression=compression)
    event = row(TABLE, AFTER, BEFORE)
    assert (
        decompress(compression, packed.encode_rows([event]).records[0][1])
        == (plain.encode_rows([event]).records[0][1])
    )
    ddl = DDLEvent(COMMIT_TS, DDLType.CREATE, "CREATE TABLE t (id int)", TABLE)
    for ours, theirs in (
        (packed.encode_ddl(ddl), plain.encode_ddl(ddl)),
        (packed.encode_checkpoint(COMMIT_TS), plain.encode_checkpoint(COMMIT_TS)),
    ):
        assert ours is not None and theirs is not None
        assert decompress(compression, ours.value) == theirs.value


def test_ticdc_keys_from_the_uri_and_the_changefeed_file() -> None:
    toml = """
[sink]
protocol = "canal-json"
delete-only-output-handle-key-columns = true
only-output-updated-columns = true
[sink.kafka-config.codec-config]
enable-tidb-extension = true
"""
    config = ChangefeedConfig.from_toml(toml)
    assert config.encoder.options == CanalOptions(
        enable_tidb_extension=True,
        only_output_updated_columns=True,
        delete_only_output_handle_key_columns=True,
    )
    uri = parse_sink_uri(
        "kafka://127.0.0.1:9092/t?protocol=canal-json&content-compatible=true"
        "&enable-tidb-extension=false&max-message-bytes=2048"
    )
    merged = config.with_uri(uri)
    options = merged.encoder.options
    assert isinstance(options, CanalOptions)
    assert options.content_compatible and options.only_updated
    assert not options.enable_tidb_extension
    assert merged.encoder.max_message_bytes == 2048
    assert not merged.ignored_keys
