"""The verify decoder of both DTS Avro formats: messages, commit TSOs, keys, and the
transaction framing it enforces per partition."""

from __future__ import annotations

import pytest

from tests.codec.dts.avro.support import decode, encoder
from tisink.codec.decoded import DDL, DML, FRAME_TYPES, HEARTBEAT, WATERMARK
from tisink.codec.dts.avro.decoder import DTSAvroDecoder
from tisink.codec.dts.avro.generic import write_datum
from tisink.codec.dts.avro.schemas import record_schema
from tisink.codec.errors import MessageDecodeError
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table
from tisink.model.tso import compose_ts

TS = compose_ts(1_715_930_562_000, 9)
FORMATS = ("alibaba", "tencent")


def _table(indexes: list[IndexInfo]) -> TableInfo:
    columns = [ColumnInfo("id", "int", nullable=False), ColumnInfo("k", "varchar", length=9)]
    return make_table("db", "t.1", 5, 1, columns, indexes)


PRIMARY = [IndexInfo("PRIMARY", ("id",), unique=True, primary=True)]


def _values(fmt: str, rows: list[RowChangedEvent]) -> list[bytes]:
    return [value for _key, value in encoder(fmt).encode_rows(rows).records]


@pytest.mark.parametrize("fmt", FORMATS)
def test_stream_decodes_to_messages(fmt: str) -> None:
    table = _table(PRIMARY)
    rows = [
        RowChangedEvent(TS - 3, TS, table, after={"id": 1, "k": "a"}),
        RowChangedEvent(TS - 3, TS, table, {"id": 1, "k": "a"}, {"id": 1, "k": None}),
    ]
    enc = encoder(fmt, interval_s=0)
    decoder = DTSAvroDecoder(fmt)
    decoded = [decoder.decode(None, value) for value in _values(fmt, rows)]
    # the frames count as the DML messages they are; the checker checks only rows
    assert [(m.kind, m.type) for m in decoded[0]] == [(DML, "BEGIN")]
    assert [(m.kind, m.type) for m in decoded[-1]] == [(DML, "COMMIT")]
    insert, update = decoded[1][0], decoded[2][0]
    assert (insert.kind, insert.type, insert.commit_ts) == (DML, "INSERT", TS)
    assert (insert.database, insert.table) == ("db", "t.1")
    assert insert.table_schema is not None and insert.table_schema.handle_key == ("id",)
    assert insert.schema_version == insert.table_schema.version
    assert insert.old is None and insert.data is not None
    assert insert.data["id"] == {"precision": 11, "value": "1"}
    assert update.type == "UPDATE" and update.old is not None and update.data is not None
    assert update.data["k"] is None
    ddl = enc.encode_ddl(DDLEvent(TS + 1, DDLType.TRUNCATE, "TRUNCATE t", table, table))
    checkpoint = enc.encode_checkpoint(TS + 1)
    assert ddl is not None and checkpoint is not None
    [ddl_message] = decoder.decode(None, ddl.value)
    assert (ddl_message.kind, ddl_message.commit_ts, ddl_message.table) == (DDL, TS + 1, "t.1")
    [watermark] = decoder.decode(None, checkpoint.value)
    assert (watermark.kind, watermark.commit_ts) == (WATERMARK, TS + 1)
    [heartbeat] = decoder.decode(None, enc.encode_heartbeat(TS + 1).value)
    assert (heartbeat.kind, heartbeat.type) == (HEARTBEAT, "HEARTBEAT")


@pytest.mark.parametrize("fmt", FORMATS)
def test_row_identity_without_primary_key(fmt: str) -> None:
    table = _table([IndexInfo("uk_k", ("k",), unique=True)])
    values = _values(fmt, [RowChangedEvent(TS - 1, TS, table, after={"id": 1, "k": "a"})])
    decoder = DTSAvroDecoder(fmt)
    [message] = [
        m for value in values for m in decoder.decode(None, value) if m.type not in FRAME_TYPES
    ]
    assert message.table_schema is not None
    # Alibaba lists unique keys in pk_uk_info; Tencent's pkNames has primary keys only
    assert message.table_schema.handle_key == (("k",) if fmt == "alibaba" else ())


@pytest.mark.parametrize("fmt", FORMATS)
def test_broken_framing_is_reported(fmt: str) -> None:
    table = _table(PRIMARY)
    first = _values(fmt, [RowChangedEvent(TS - 1, TS, table, after={"id": 1, "k": "a"})])
    second = _values(fmt, [RowChangedEvent(TS, TS + 7, table, after={"id": 2, "k": "b"})])
    with pytest.raises(MessageDecodeError, match="arrives inside no transaction"):
        DTSAvroDecoder(fmt).decode(None, first[1])
    decoder = DTSAvroDecoder(fmt)
    decoder.decode(None, first[0])
    with pytest.raises(MessageDecodeError, match="has no COMMIT"):
        decoder.decode(None, second[0])
    decoder = DTSAvroDecoder(fmt)
    decoder.decode(None, first[0])
    with pytest.raises(MessageDecodeError, match=f"arrives inside .*:{TS}"):
        decoder.decode(None, second[1])
    enc = encoder(fmt, interval_s=0)
    ddl = enc.encode_ddl(DDLEvent(TS + 1, DDLType.TRUNCATE, "TRUNCATE t", table, table))
    assert ddl is not None
    for control in (enc.encode_heartbeat(TS), enc.encode_checkpoint(TS), ddl):
        assert control is not None
        decoder = DTSAvroDecoder(fmt)
        decoder.decode(None, first[0])
        with pytest.raises(MessageDecodeError, match=r"record arrives inside transaction .*:"):
            decoder.decode(None, control.value)


@pytest.mark.parametrize("fmt", FORMATS)
def test_undecodable_values(fmt: str) -> None:
    table = _table(PRIMARY)
    [begin, row, _commit] = _values(
        fmt, [RowChangedEvent(TS - 1, TS, table, after={"id": 1, "k": "a"})]
    )
    decoder = DTSAvroDecoder(fmt)
    for value in (None, b"", b"\xff" * 7, begin + b"\x00", row[: len(row) // 2]):
        with pytest.raises(MessageDecodeError, match=fmt):
            decoder.decode(None, value)


def test_other_formats_are_refused() -> None:
    with pytest.raises(MessageDecodeError, match="protobuf"):
        DTSAvroDecoder("protobuf")


@pytest.mark.parametrize("fmt", FORMATS)
def test_images_must_fit_the_row_kind(fmt: str) -> None:
    """An INSERT carrying a before image is not a record a consumer can apply."""
    table = _table(PRIMARY)
    update = RowChangedEvent(TS - 1, TS, table, {"id": 1, "k": "a"}, {"id": 1, "k": "b"})
    [begin, value, _commit] = _values(fmt, [update])
    record = decode(fmt, value)
    record["operation" if fmt == "alibaba" else "messageType"] = "INSERT"
    forged = write_datum(record_schema(fmt), record)
    decoder = DTSAvroDecoder(fmt)
    decoder.decode(None, begin)
    with pytest.raises(MessageDecodeError, match="INSERT with after image True, before True"):
        decoder.decode(None, forged)
