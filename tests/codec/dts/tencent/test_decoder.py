"""The verify decoder: what it returns for the encoder's stream, and every rule it enforces on
streams built independently with the generated classes."""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.codec.dts.tencent.support import example_row, new_encoder, ts_at
from tisink.codec.decoded import DDL, DML, WATERMARK
from tisink.codec.dts import binlog
from tisink.codec.dts.tencent.decoder import TencentProtobufDecoder
from tisink.codec.errors import MessageDecodeError
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent
from tisink.model.table import TableInfo

GTID = f"{binlog.SOURCE_UUID}:{ts_at()}"


def test_reads_the_encoders_stream(table: TableInfo) -> None:
    ts = ts_at()
    row = example_row()
    encoder = new_encoder()
    records = encoder.encode_rows(
        [
            RowChangedEvent(ts - 1, ts, table, None, row),
            RowChangedEvent(ts - 1, ts, table, row, {**row, "name": "x", "n": "y"}),
        ]
    ).records
    ddl = encoder.encode_ddl(DDLEvent(ts_at(1), DDLType.ALTER, "ALTER TABLE t", table, table))
    checkpoint = encoder.encode_checkpoint(ts_at(2))
    assert ddl is not None and checkpoint is not None
    decoder = TencentProtobufDecoder()
    insert, update = decoder.decode(*records[0])
    assert (insert.kind, insert.type, insert.commit_ts) == (DML, "INSERT", ts)
    assert (insert.database, insert.table, insert.old) == ("db", "t", None)
    assert insert.table_schema is not None
    assert insert.table_schema.handle_key == ("id",)
    assert insert.data == {
        "id": "42",
        "u": "4294967295",
        "name": "héllo",
        "amt": "12.50",
        "f": "1.5",
        "dt": "2024-01-31 12:34:56",
        "ts": "2021-05-17 07:22:42 +00:00",
        "j": b'{"k": 1}',
        "b": b"\x00\x01\xff",
        "n": None,
    }
    assert update.type == "UPDATE"
    assert update.old == insert.data
    assert update.data is not None and (update.data["name"], update.data["n"]) == ("x", "y")
    (decoded_ddl,) = decoder.decode(ddl.key, ddl.value)
    assert (decoded_ddl.kind, decoded_ddl.commit_ts) == (DDL, ts_at(1))
    (watermark,) = decoder.decode(checkpoint.key, checkpoint.value)
    assert (watermark.kind, watermark.commit_ts) == (WATERMARK, ts_at(2))


def test_slices_come_back_on_the_last_one(table: TableInfo) -> None:
    ts = ts_at()
    rows = [RowChangedEvent(ts - 1, ts, table, None, example_row(i)) for i in range(30)]
    records = new_encoder(max_message_bytes=500).encode_rows(rows).records
    decoder = TencentProtobufDecoder()
    decoded = [decoder.decode(key, value) for key, value in records]
    assert sum(len(d) for d in decoded) == 30
    assert [] in decoded  # slices before the last return nothing
    assert [m.data["id"] for d in decoded for m in d if m.data] == [str(i) for i in range(30)]


def header(pb: ModuleType, kind: int, seq: int, **fields: object) -> object:
    return pb.Header(version=1, messageType=kind, seqId=seq, gtid=GTID, **fields)


def envelope(pb: ModuleType, *entries: object, version: int = 1) -> bytes:
    data = pb.Entries(items=list(entries)).SerializeToString()
    return pb.Envelope(version=version, total=1, index=0, data=data).SerializeToString()


def begin(pb: ModuleType, seq: int) -> object:
    return pb.Entry(header=header(pb, pb.BEGIN, seq), event=pb.Event(beginEvent=pb.BeginEvent()))


def commit(pb: ModuleType, seq: int, gtid: str = GTID) -> object:
    return pb.Entry(
        header=pb.Header(version=1, messageType=pb.COMMIT, seqId=seq, gtid=gtid),
        event=pb.Event(commitEvent=pb.CommitEvent(transactionId="7")),
    )


def insert(pb: ModuleType, seq: int, values: int = 1) -> object:
    data = [pb.Data(dataType=pb.INT32, sv="1")] * values
    dml = pb.DMLEvent(
        dmlEventType=pb.INSERT,
        columns=[pb.Column(name="id", isKey=True)],
        rows=[pb.RowChange(newColumns=data)],
    )
    return pb.Entry(
        header=header(pb, pb.DML, seq, schemaName="db", tableName="t"),
        event=pb.Event(dmlEvent=dml),
    )


def checkpoint(pb: ModuleType, seq: int) -> object:
    event = pb.CheckpointEvent(syncedGtid=f"{binlog.SOURCE_UUID}:1-{ts_at()}", fakeGtid=True)
    return pb.Entry(
        header=pb.Header(version=1, messageType=pb.CHECKPOINT, seqId=seq),
        event=pb.Event(checkpointEvent=event),
    )


def heartbeat(pb: ModuleType, seq: int) -> object:
    return pb.Entry(
        header=pb.Header(version=1, messageType=pb.HEARTBEAT, seqId=seq),
        event=pb.Event(heartbeatEvent=pb.HeartbeatEvent(epoch=1_715_930_562)),
    )


def test_a_well_formed_stream_passes(pb: ModuleType) -> None:
    decoder = TencentProtobufDecoder()
    assert decoder.decode(b"", envelope(pb, heartbeat(pb, 1))) == []
    (row,) = decoder.decode(b"", envelope(pb, begin(pb, 1), insert(pb, 2), commit(pb, 3)))
    assert (row.type, row.data) == ("INSERT", {"id": "1"})
    (mark,) = decoder.decode(b"", envelope(pb, checkpoint(pb, 4)))
    assert mark.commit_ts == ts_at()


@pytest.mark.parametrize(
    ("stream", "problem"),
    [
        (lambda pb: [envelope(pb, begin(pb, 1), version=2)], "unsupported Envelope version 2"),
        (lambda pb: [envelope(pb, begin(pb, 1), begin(pb, 2))], "BEGIN while"),
        (lambda pb: [envelope(pb, insert(pb, 1))], "outside its BEGIN/COMMIT"),
        (lambda pb: [envelope(pb, begin(pb, 1), commit(pb, 2, "x:1"))], "COMMIT of x:1"),
        (lambda pb: [envelope(pb, begin(pb, 1), checkpoint(pb, 2))], "not alone"),
        (lambda pb: [envelope(pb, begin(pb, 1)), envelope(pb, checkpoint(pb, 2))], "inside"),
        (lambda pb: [envelope(pb, heartbeat(pb, 1), heartbeat(pb, 2))], "HEARTBEAT is item 0"),
        (
            lambda pb: [envelope(pb, begin(pb, 1)), envelope(pb, heartbeat(pb, 2))],
            "HEARTBEAT seqId 2: HEARTBEAT inside transaction",
        ),
        (lambda pb: [envelope(pb, begin(pb, 1), insert(pb, 2, values=2))], "2 new values"),
        (lambda pb: [envelope(pb, begin(pb, 5), insert(pb, 5))], "not above 5 of its"),
        (
            lambda pb: [envelope(pb, pb.Entry(header=pb.Header(version=1, messageType=pb.DDL)))],
            "Event member 0 set, not 4.*GTID '' is not",
        ),
    ],
)
def test_broken_streams_are_named(pb: ModuleType, stream: object, problem: str) -> None:
    decoder = TencentProtobufDecoder()
    values = stream(pb)  # type: ignore[operator]
    for value in values[:-1]:
        decoder.decode(b"", value)
    with pytest.raises(MessageDecodeError, match=problem):
        decoder.decode(b"", values[-1])


def sliced(pb: ModuleType, data: bytes, total: int, index: int) -> bytes:
    return pb.Envelope(version=1, total=total, index=index, data=data).SerializeToString()


def test_slices_out_of_order_are_named(pb: ModuleType) -> None:
    data = pb.Entries(items=[checkpoint(pb, 1)]).SerializeToString()
    decoder = TencentProtobufDecoder()
    assert decoder.decode(b"", sliced(pb, data[:5], 3, 0)) == []
    with pytest.raises(MessageDecodeError, match="got index 2 of 3, expected index 1 of 3"):
        decoder.decode(b"", sliced(pb, data[5:], 3, 2))
    decoder = TencentProtobufDecoder()
    decoder.decode(b"", sliced(pb, data[:5], 2, 0))
    with pytest.raises(MessageDecodeError, match="abandoned after 1"):
        decoder.decode(b"", envelope(pb, checkpoint(pb, 1)))


def test_ps_duplicates_and_gaps_are_named(pb: ModuleType) -> None:
    """As the demo: a repeat is skipped, a jump is lost messages, 1 starts over."""
    decoder = TencentProtobufDecoder()
    decoder.decode_with_headers(b"", envelope(pb, checkpoint(pb, 1)), (("ps", b"1"),))
    decoder.decode_with_headers(b"", envelope(pb, checkpoint(pb, 2)), (("ps", b"2"),))
    with pytest.raises(MessageDecodeError, match="duplicate ps 2 after ps 2"):
        decoder.decode_with_headers(b"", envelope(pb, checkpoint(pb, 2)), (("ps", b"2"),))
    with pytest.raises(MessageDecodeError, match="gap from ps 2 to 5: 2 message"):
        decoder.decode_with_headers(b"", envelope(pb, checkpoint(pb, 3)), (("ps", b"5"),))
    decoder.decode_with_headers(b"", envelope(pb, checkpoint(pb, 4)), (("ps", b"6"),))
    decoder.decode_with_headers(b"", envelope(pb, checkpoint(pb, 5)), (("ps", b"1"),))
    with pytest.raises(MessageDecodeError, match="ps: header missing"):
        decoder.decode_with_headers(b"", envelope(pb, checkpoint(pb, 6)), ())


def test_garbage_is_undecodable() -> None:
    with pytest.raises(MessageDecodeError, match="not a Tencent DTS"):
        TencentProtobufDecoder().decode(b"", b"\xff\xff\xff")
    with pytest.raises(MessageDecodeError, match="tombstone"):
        TencentProtobufDecoder().decode(b"", None)
