"""The decoder reads back what the encoder writes, and refuses what a consumer would trip on."""

from __future__ import annotations

import orjson
import pytest

from tests.codec.canal.support import COMMIT_TS, encoder, row, table_of
from tisink.codec.canal.decoder import CanalJSONDecoder
from tisink.codec.compression import compress
from tisink.codec.decoded import DDL, DML, WATERMARK
from tisink.codec.errors import MessageDecodeError
from tisink.model.events import DDLEvent, DDLType

INT = {"mysqlType": "int", "length": 11}
TEXT = {"mysqlType": "varchar", "length": 64, "charset": "utf8mb4"}
TABLE = table_of([("id", INT), ("name", TEXT)])


@pytest.mark.parametrize("extension", [False, True])
@pytest.mark.parametrize("compression", ["none", "snappy"])
def test_round_trip_of_every_message_kind(extension: bool, compression: str) -> None:
    codec = encoder(
        {"enable-tidb-extension": extension}, large_message_handle_compression=compression
    )
    decoder = CanalJSONDecoder(compression)
    events = [
        row(TABLE, {"id": 1, "name": "a"}),
        row(TABLE, {"id": 1, "name": "b"}, {"id": 1, "name": "a"}),
        row(TABLE, None, {"id": 1, "name": "b"}),
    ]
    decoded = [decoder.decode(k, v)[0] for k, v in codec.encode_rows(events).records]
    assert [(d.kind, d.type) for d in decoded] == [
        (DML, "INSERT"),
        (DML, "UPDATE"),
        (DML, "DELETE"),
    ]
    ts = COMMIT_TS if extension else (COMMIT_TS >> 18) << 18
    assert {d.commit_ts for d in decoded} == {ts}
    assert decoded[0].data == {"id": "1", "name": "a"} and decoded[0].old is None
    assert decoded[1].data == {"id": "1", "name": "b"} and decoded[1].old == {
        "id": "1",
        "name": "a",
    }
    assert decoded[2].data is None and decoded[2].old == {"id": "1", "name": "b"}
    assert decoded[0].table_schema is not None
    assert decoded[0].table_schema.handle_key == ("id",)
    ddl = codec.encode_ddl(DDLEvent(COMMIT_TS, DDLType.CREATE, "CREATE TABLE t (id int)", TABLE))
    assert ddl is not None
    (message,) = decoder.decode(None, ddl.value)
    assert (message.kind, message.type, message.table_name) == (DDL, "CREATE", "test.t")
    watermark = codec.encode_checkpoint(COMMIT_TS)
    if extension:
        assert watermark is not None
        (message,) = decoder.decode(None, watermark.value)
        assert (message.kind, message.commit_ts) == (WATERMARK, COMMIT_TS)


def _value(**changes: object) -> bytes:
    codec = encoder({"enable-tidb-extension": True})
    body = orjson.loads(
        codec.encode_rows([row(TABLE, {"id": 1, "name": "b"}, {"id": 1, "name": "a"})]).records[0][
            1
        ]
    )
    body.update(changes)
    return orjson.dumps(body)


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (None, "tombstone"),
        (b"not json", "JSONDecodeError"),
        (b"[1]", "JSON object"),
        (_value(type="UPSERT"), "unknown message type"),
        (_value(old=None), "UPDATE with data True, old False"),
        (_value(data=[{"id": 1, "name": "b"}]), "not a string or null"),
        (_value(data={"id": "1"}), "not a list of one object"),
        (_value(sqlType={"id": 4}), "sqlType names"),
        (_value(_tidb={"commitTs": -1}), "not a TSO"),
        (_value(isDdl=True), "unknown DDL type"),
    ],
)
def test_refuses_what_is_not_a_canal_json_message(value: bytes | None, reason: str) -> None:
    with pytest.raises(MessageDecodeError, match=reason):
        CanalJSONDecoder().decode(None, value)


def test_wrong_compression_is_reported() -> None:
    value = compress("lz4", _value())
    with pytest.raises(MessageDecodeError, match="compression none"):
        CanalJSONDecoder().decode(None, value)
