"""The encoder's output read with classes generated from
``tests/data/formats/tencent-dts/subscribe.proto``, field by field against spec/dts-formats.md 2
and the seed page (no goldens exist)."""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.codec.dts.tencent.support import COMMIT_MS, example_row, new_encoder, ts_at
from tisink.codec.dts import binlog
from tisink.codec.errors import MessageTooLargeError
from tisink.codec.message import MessageType as Kind
from tisink.core.clock import FixedClock
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent
from tisink.model.table import ColumnInfo, TableInfo, make_table


def entries_of(pb: ModuleType, values: list[bytes]) -> list:
    """Reassemble as the demo does and return every Entry."""
    out, buffer = [], b""
    for value in values:
        envelope = pb.Envelope.FromString(value)
        assert envelope.version == 1
        buffer = envelope.data if envelope.index == 0 else buffer + envelope.data
        if envelope.index == envelope.total - 1:
            out.extend(pb.Entries.FromString(buffer).items)
    return out


def test_transaction_is_begin_dml_commit(pb: ModuleType, table: TableInfo) -> None:
    ts = ts_at(logical=3)
    rows = [RowChangedEvent(ts - 9, ts, table, None, example_row(i)) for i in (1, 2)]
    encoded = new_encoder().encode_rows(rows)
    assert len(encoded.records) == 1
    key, value = encoded.records[0]
    assert key == b""
    assert encoded.size == len(value)
    envelope = pb.Envelope.FromString(value)
    assert (envelope.version, envelope.total, envelope.index) == (1, 1, 0)
    begin, dml, commit = pb.Entries.FromString(envelope.data).items
    assert [e.header.messageType for e in (begin, dml, commit)] == [
        pb.BEGIN,
        pb.DML,
        pb.COMMIT,
    ]
    assert begin.event.HasField("beginEvent")
    assert begin.event.beginEvent.transactionId == ""
    assert commit.event.commitEvent.transactionId == str(ts - 9)
    gtid = f"{binlog.SOURCE_UUID}:{ts}"
    first_seq = binlog.seq_id(ts, 0)
    for offset, entry in enumerate((begin, dml, commit)):
        header = entry.header
        assert header.version == 1
        assert header.sourceType == pb.MYSQL
        assert header.timestamp == COMMIT_MS // 1000
        assert header.serverId == 1
        assert header.fileName == "tidb-binlog.000001"
        assert header.gtid == gtid
        assert header.seqId == header.position == first_seq + offset
        assert header.eventIndex == 0 and not header.isLast
    assert (dml.header.schemaName, dml.header.tableName) == ("db", "t")
    assert (begin.header.tableName, commit.header.tableName) == ("", "")
    event = dml.event.dmlEvent
    assert event.dmlEventType == pb.INSERT
    assert [(c.name, c.originalType, c.isKey) for c in event.columns] == [
        ("id", "int(11)", True),
        ("u", "int(10) unsigned", False),
        ("name", "varchar(20)", False),
        ("amt", "decimal(10,2)", False),
        ("f", "double", False),
        ("dt", "datetime", False),
        ("ts", "timestamp", False),
        ("j", "json", False),
        ("b", "blob", False),
        ("n", "varchar(5)", False),
    ]
    assert len(event.rows) == 2
    assert [len(r.oldColumns) for r in event.rows] == [0, 0]
    assert event.rows[1].newColumns[0].sv == "2"


def test_values_follow_the_spec_example(pb: ModuleType, table: TableInfo) -> None:
    """spec/dts-formats.md 2.5, the example row."""
    ts = ts_at()
    encoded = new_encoder().encode_rows([RowChangedEvent(ts - 1, ts, table, None, example_row())])
    dml = entries_of(pb, [v for _, v in encoded.records])[1]
    got = {
        c.name: (pb.DataType.Name(d.dataType), d.charset, d.sv, d.bv)
        for c, d in zip(
            dml.event.dmlEvent.columns, dml.event.dmlEvent.rows[0].newColumns, strict=True
        )
    }
    assert got == {
        "id": ("INT32", "", "42", b""),
        "u": ("UINT32", "", "4294967295", b""),
        "name": ("STRING", "utf8mb4", "", "héllo".encode()),
        "amt": ("DECIMAL", "", "12.50", b""),
        "f": ("FLOAT64", "", "1.5", b""),
        "dt": ("STRING", "", "", b"2024-01-31 12:34:56"),
        "ts": ("STRING", "", "", b"2021-05-17 07:22:42 +00:00"),
        "j": ("BYTES", "", "", b'{"k": 1}'),
        "b": ("BYTES", "", "", b"\x00\x01\xff"),
        "n": ("NIL", "", "", b""),
    }


def test_zero_enums_are_on_the_wire(pb_presence: ModuleType, table: TableInfo) -> None:
    """BEGIN, NIL and INSERT are proto3 zero values: written anyway, so a reader that tracks
    presence sees them set."""
    ts = ts_at()
    encoded = new_encoder().encode_rows([RowChangedEvent(ts - 1, ts, table, None, example_row())])
    envelope = pb_presence.Envelope.FromString(encoded.records[0][1])
    begin, dml, _commit = pb_presence.Entries.FromString(envelope.data).items
    assert begin.header.HasField("messageType")
    assert begin.header.messageType == pb_presence.BEGIN
    assert dml.event.dmlEvent.HasField("dmlEventType")
    values = dml.event.dmlEvent.rows[0].newColumns
    assert all(d.HasField("dataType") for d in values)
    assert values[-1].dataType == pb_presence.NIL


def test_runs_split_by_table_and_type(pb: ModuleType, table: TableInfo) -> None:
    other = make_table("db", "u", 43, 1, [ColumnInfo("k", "bigint", unsigned=True)])
    ts = ts_at()
    row = example_row()
    rows = [
        RowChangedEvent(ts - 1, ts, table, None, row),
        RowChangedEvent(ts - 1, ts, table, None, example_row(43)),
        RowChangedEvent(ts - 1, ts, table, row, {**row, "name": "x"}),
        RowChangedEvent(ts - 1, ts, other, None, {"k": 18446744073709551615}),
        RowChangedEvent(ts - 1, ts, table, row, None),
    ]
    items = entries_of(pb, [v for _, v in new_encoder().encode_rows(rows).records])
    kinds = [pb.MessageType.Name(e.header.messageType) for e in items]
    assert kinds == ["BEGIN", "DML", "DML", "DML", "DML", "COMMIT"]
    dmls = [e.event.dmlEvent for e in items[1:-1]]
    assert [pb.DMLType.Name(d.dmlEventType) for d in dmls] == [
        "INSERT",
        "UPDATE",
        "INSERT",
        "DELETE",
    ]
    assert [len(d.rows) for d in dmls] == [2, 1, 1, 1]
    assert [e.header.tableName for e in items[1:-1]] == ["t", "t", "u", "t"]
    update = dmls[1].rows[0]
    assert len(update.oldColumns) == len(update.newColumns) == 10
    assert update.oldColumns[2].bv == "héllo".encode()
    assert update.newColumns[2].bv == b"x"
    delete = dmls[3].rows[0]
    assert len(delete.oldColumns) == 10 and len(delete.newColumns) == 0
    assert dmls[2].rows[0].newColumns[0].dataType == pb.UINT64
    assert dmls[2].rows[0].newColumns[0].sv == "18446744073709551615"
    seqs = [e.header.seqId for e in items]
    assert seqs == list(range(seqs[0], seqs[0] + 6))


def test_missing_column_is_na(pb: ModuleType, table: TableInfo) -> None:
    ts = ts_at()
    image = example_row()
    del image["f"]
    items = entries_of(
        pb,
        [
            v
            for _, v in new_encoder()
            .encode_rows([RowChangedEvent(1, ts, table, None, image)])
            .records
        ],
    )
    values = items[1].event.dmlEvent.rows[0].newColumns
    assert values[4].dataType == pb.NA
    assert values[9].dataType == pb.NIL


def test_two_transactions_in_one_share(pb: ModuleType, table: TableInfo) -> None:
    first, second = ts_at(logical=1), ts_at(logical=2)
    rows = [
        RowChangedEvent(first - 1, first, table, None, example_row(1)),
        RowChangedEvent(second - 1, second, table, None, example_row(2)),
    ]
    items = entries_of(pb, [v for _, v in new_encoder().encode_rows(rows).records])
    assert [e.header.messageType for e in items] == [pb.BEGIN, pb.DML, pb.COMMIT] * 2
    assert items[0].header.gtid.endswith(f":{first}")
    assert items[3].header.gtid.endswith(f":{second}")
    assert items[3].header.seqId > items[2].header.seqId


def test_rows_merge_then_slice_at_max_message_bytes(pb: ModuleType, table: TableInfo) -> None:
    ts = ts_at()
    rows = [RowChangedEvent(ts - 1, ts, table, None, example_row(i)) for i in range(40)]
    small = new_encoder(max_message_bytes=600)
    encoded = small.encode_rows(rows)
    values = [v for _, v in encoded.records]
    assert len(values) > 2
    assert all(len(v) <= 600 - 36 - 32 for v in values)
    envelopes = [pb.Envelope.FromString(v) for v in values]
    # BEGIN merges with nothing that does not fit; the big DML entry is sliced
    slices = [e for e in envelopes if e.total > 1]
    assert [e.index for e in slices] == list(range(slices[0].total))
    big = entries_of(pb, [v for _, v in new_encoder().encode_rows(rows).records])
    assert entries_of(pb, values) == big


def test_ddl_entry(pb: ModuleType, table: TableInfo) -> None:
    ts = ts_at(5000)
    message = new_encoder().encode_ddl(
        DDLEvent(ts, DDLType.ALTER, "ALTER TABLE `db`.`t` ADD COLUMN x INT", table, table)
    )
    assert message is not None
    assert message.type is Kind.DDL and message.key == b""
    (entry,) = entries_of(pb, [message.value])
    assert entry.header.messageType == pb.DDL
    assert entry.header.gtid == f"{binlog.SOURCE_UUID}:{ts}"
    assert (entry.header.schemaName, entry.header.tableName) == ("db", "t")
    assert entry.event.ddlEvent.schemaName == "db"
    assert entry.event.ddlEvent.sql == "ALTER TABLE `db`.`t` ADD COLUMN x INT"
    assert entry.event.ddlEvent.executionTime == 0
    assert new_encoder().encode_ddl(DDLEvent.bootstrap(table)) is None
    assert new_encoder().encode_bootstrap(table) is None


def test_ddl_too_large_is_an_error(table: TableInfo) -> None:
    ddl = DDLEvent(ts_at(), DDLType.QUERY, "CREATE TABLE x (" + "c INT, " * 200 + "d INT)")
    with pytest.raises(MessageTooLargeError, match="DDL entry"):
        new_encoder(max_message_bytes=400).encode_ddl(ddl)


def test_checkpoint_cadence(pb: ModuleType) -> None:
    clock = FixedClock(COMMIT_MS)
    encoder = new_encoder(clock=clock)
    first = encoder.encode_checkpoint(ts_at())
    assert first is not None and first.type is Kind.WATERMARK
    clock.advance(9_999)
    assert encoder.encode_checkpoint(ts_at(9_999)) is None
    clock.advance(1)
    later = encoder.encode_checkpoint(ts_at(10_000))
    assert later is not None
    (entry,) = entries_of(pb, [later.value])
    assert entry.header.messageType == pb.CHECKPOINT
    checkpoint = entry.event.checkpointEvent
    assert checkpoint.syncedGtid == f"{binlog.SOURCE_UUID}:1-{ts_at(10_000)}"
    assert checkpoint.fakeGtid
    assert checkpoint.fileName == "tidb-binlog.000001"
    assert checkpoint.position == entry.header.seqId == binlog.seq_id(ts_at(10_000), 63)


def test_checkpoint_follows_its_transactions(pb: ModuleType, table: TableInfo) -> None:
    """A checkpoint at ts sorts after every entry committed at ts, and before later ones,
    even from another encoder instance (the DDL sink's)."""
    ts = ts_at()
    dml = entries_of(
        pb,
        [
            v
            for _, v in new_encoder()
            .encode_rows([RowChangedEvent(1, ts, table, None, example_row())])
            .records
        ],
    )
    checkpoint = new_encoder().encode_checkpoint(ts)
    assert checkpoint is not None
    (entry,) = entries_of(pb, [checkpoint.value])
    later = ts_at(logical=1)
    after = entries_of(
        pb,
        [
            v
            for _, v in new_encoder()
            .encode_rows([RowChangedEvent(1, later, table, None, example_row())])
            .records
        ],
    )
    assert dml[-1].header.seqId < entry.header.seqId < after[0].header.seqId


def test_time_zone_moves_timestamps(pb: ModuleType, table: TableInfo) -> None:
    ts = ts_at()
    encoder = new_encoder(time_zone="Asia/Shanghai")
    items = entries_of(
        pb,
        [
            v
            for _, v in encoder.encode_rows(
                [RowChangedEvent(1, ts, table, None, example_row())]
            ).records
        ],
    )
    assert items[1].event.dmlEvent.rows[0].newColumns[6].bv == b"2021-05-17 15:22:42 +08:00"


def test_heartbeat_entry(pb: ModuleType, table: TableInfo) -> None:
    """A HEARTBEAT alone in its Envelope, timed by the clock, placed after the rows at its ts
    and before the checkpoint at that ts."""
    clock = FixedClock(COMMIT_MS + 42_500)
    encoder = new_encoder(clock=clock)
    ts = ts_at()
    message = encoder.encode_heartbeat(ts)
    assert message.type is Kind.HEARTBEAT and message.key == b""
    (entry,) = entries_of(pb, [message.value])
    header = entry.header
    assert header.messageType == pb.HEARTBEAT
    assert entry.event.HasField("heartbeatEvent")
    assert [f.name for f, _ in entry.event.ListFields()] == ["heartbeatEvent"]
    assert entry.event.heartbeatEvent.epoch == header.timestamp == (COMMIT_MS + 42_500) // 1000
    assert header.version == 1 and header.gtid == ""
    assert header.seqId == header.position == binlog.seq_id(ts, binlog.HEARTBEAT_INDEX)
    rows = encoder.encode_rows([RowChangedEvent(1, ts, table, None, example_row())])
    dml = entries_of(pb, [v for _, v in rows.records])
    assert dml[-1].header.seqId < header.seqId < binlog.seq_id(ts, binlog.CHECKPOINT_INDEX)
