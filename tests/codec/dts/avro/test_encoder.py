"""The DTS Avro encoder's framing: BEGIN/rows/COMMIT per share, synthetic binlog coordinates,
DDL records, the CHECKPOINT cadence and size limits, read back with fastavro."""

from __future__ import annotations

import pytest

from tests.codec.dts.avro.support import decode, encoder
from tisink.codec.dts import binlog
from tisink.codec.errors import MessageTooLargeError
from tisink.codec.message import MessageType
from tisink.core.clock import FixedClock
from tisink.core.errors import ConfigError
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table
from tisink.model.tso import compose_ts

COMMIT_MS = 1_715_930_562_000  # 2024-05-17 07:22:42 UTC
TS = compose_ts(COMMIT_MS, 5)
START = compose_ts(COMMIT_MS - 40, 1)
GTID = f"{binlog.SOURCE_UUID}:{TS}"


@pytest.fixture
def table() -> TableInfo:
    return make_table(
        "shop.eu",
        "orders",
        9,
        3,
        [
            ColumnInfo("id", "int", nullable=False),
            ColumnInfo("email", "varchar", charset="utf8mb4", length=64),
            ColumnInfo("v", "int", generated="virtual"),
        ],
        [
            IndexInfo("PRIMARY", ("id",), unique=True, primary=True),
            IndexInfo("uk_email", ("email",), unique=True),
        ],
    )


def _rows(table: TableInfo) -> list[RowChangedEvent]:
    return [
        RowChangedEvent(START, TS, table, after={"id": 1, "email": "a@x"}),
        RowChangedEvent(START, TS, table, {"id": 1, "email": "a@x"}, {"id": 1, "email": "b@x"}),
        RowChangedEvent(START, TS, table, before={"id": 2, "email": None}),
    ]


def test_alibaba_transaction(table: TableInfo) -> None:
    enc = encoder("alibaba", 99)
    assert enc.message_per_row is False
    records = [decode("alibaba", value) for _key, value in enc.encode_rows(_rows(table)).records]
    ops = [r["operation"] for r in records]
    assert ops == ["BEGIN", "INSERT", "UPDATE", "DELETE", "COMMIT"]
    ids = [r["id"] for r in records]
    assert ids == list(range(ids[0], ids[0] + 5))
    assert ids[0] == binlog.seq_id(TS, 0)
    for record in records:
        assert record["version"] == 2
        assert record["sourceTimestamp"] == COMMIT_MS // 1000
        assert record["bornTimestamp"] == COMMIT_MS
        assert record["sourcePosition"] == f"{record['id']}@1"
        assert record["safeSourcePosition"] == f"{ids[0]}@1"
        assert record["sourceTxid"] == str(START)
        assert record["source"] == {"sourceType": "MySQL", "version": "8.0.11-TiDB"}
        assert record["tags"]["GTID"] == GTID
    begin, insert, update, delete, commit = records
    for control in (begin, commit):
        assert control["objectName"] is None
        assert control["fields"] is None and control["afterImages"] is None
    assert insert["objectName"] == "shop\\u002Eeu.orders"
    assert insert["tags"]["pk_uk_info"] == '{"PRIMARY":["id"],"uk_email":["email"]}'
    assert insert["fields"] == [
        {"name": "id", "dataTypeNumber": 3},
        {"name": "email", "dataTypeNumber": 15},
    ]
    assert insert["beforeImages"] is None
    assert update["beforeImages"][1] == {"charset": "utf8mb4", "value": b"a@x"}
    assert update["afterImages"][1] == {"charset": "utf8mb4", "value": b"b@x"}
    assert delete["afterImages"] is None and delete["beforeImages"][1] is None


def test_tencent_transaction(table: TableInfo) -> None:
    enc = encoder("tencent", 1234)
    records = [decode("tencent", value) for _key, value in enc.encode_rows(_rows(table)).records]
    kinds = [r["messageType"] for r in records]
    assert kinds == ["BEGIN", "INSERT", "UPDATE", "DELETE", "COMMIT"]
    first = records[0]["id"]
    for offset, record in enumerate(records):
        assert record["id"] == first + offset
        assert record["version"] == 1
        assert record["fileName"] == "tidb-binlog.000001"
        assert record["position"] == f"{first + offset}@1"
        assert record["safePosition"] == f"{first}@1"
        assert record["timestamp"] == COMMIT_MS // 1000
        assert record["gtid"] == GTID
        assert record["readerTimestamp"] == 1234
        assert (record["serverId"], record["threadId"]) == (1, 0)
        assert record["total"] == 1 and record["index"] == 0
        assert record["transactionId"] == (str(START) if offset == 4 else None)
    insert = records[1]
    assert (insert["schemaName"], insert["tableName"]) == ("shop.eu", "orders")
    assert insert["objectName"] == "shop.eu.orders"
    assert insert["pkNames"] == ["id"]
    assert insert["columns"] == [
        {"name": "id", "dataTypeNumber": 3, "isKey": True, "originalType": "int(11)"},
        {"name": "email", "dataTypeNumber": 15, "isKey": False, "originalType": "varchar(64)"},
    ]
    assert insert["oldColumns"] is None and insert["newColumns"][0]["value"] == "1"
    assert records[3]["newColumns"] is None
    assert records[0]["columns"] is None and records[0]["schemaName"] is None


@pytest.mark.parametrize("fmt", ["alibaba", "tencent"])
def test_rows_of_two_transactions_get_their_own_frames(fmt: str, table: TableInfo) -> None:
    later = compose_ts(COMMIT_MS + 5, 0)
    rows = [
        RowChangedEvent(START, TS, table, after={"id": 1, "email": None}),
        RowChangedEvent(later - 9, later, table, after={"id": 2, "email": None}),
    ]
    records = [decode(fmt, value) for _key, value in encoder(fmt).encode_rows(rows).records]
    key = "operation" if fmt == "alibaba" else "messageType"
    assert [r[key] for r in records] == ["BEGIN", "INSERT", "COMMIT"] * 2
    ids = [r["id"] for r in records]
    assert ids == sorted(set(ids))


@pytest.mark.parametrize("fmt", ["alibaba", "tencent"])
def test_empty_share_and_bootstrap_send_nothing(fmt: str, table: TableInfo) -> None:
    enc = encoder(fmt)
    encoded = enc.encode_rows([])
    assert encoded.records == [] and encoded.size == 0
    assert enc.encode_bootstrap(table) is None
    assert enc.encode_ddl(DDLEvent.bootstrap(table)) is None


@pytest.mark.parametrize("fmt", ["alibaba", "tencent"])
def test_ddl_record(fmt: str, table: TableInfo) -> None:
    ddl = DDLEvent(TS, DDLType.ALTER, "ALTER TABLE orders ADD x INT", table, table, START)
    message = encoder(fmt, 77).encode_ddl(ddl)
    assert message is not None
    assert message.type is MessageType.DDL and message.key is None
    record = decode(fmt, message.value)
    assert record["id"] == binlog.seq_id(TS, 0)
    if fmt == "alibaba":
        assert record["operation"] == "DDL"
        assert record["afterImages"] == ddl.query and record["beforeImages"] is None
        assert record["objectName"] == "shop\\u002Eeu.orders"
        assert record["tags"]["GTID"] == GTID and record["sourceTxid"] == str(START)
    else:
        assert record["messageType"] == "DDL"
        assert record["sql"] == ddl.query and record["executionTime"] == 0
        assert (record["schemaName"], record["tableName"]) == ("shop.eu", "orders")
        assert record["gtid"] == GTID and record["transactionId"] is None
    database_ddl = DDLEvent(TS, DDLType.QUERY, "CREATE DATABASE d")
    plain = decode(fmt, encoder(fmt).encode_ddl(database_ddl).value)  # type: ignore[union-attr]
    assert plain["objectName"] is None


@pytest.mark.parametrize("fmt", ["alibaba", "tencent"])
def test_checkpoint_cadence(fmt: str) -> None:
    clock = FixedClock(1_000_000)
    enc = encoder(fmt, clock=clock, interval_s=10)
    first = enc.encode_checkpoint(TS)
    assert first is not None and first.type is MessageType.WATERMARK
    clock.advance(9_999)
    assert enc.encode_checkpoint(TS + 1) is None
    clock.advance(1)
    second = enc.encode_checkpoint(TS + 2)
    assert second is not None
    records = [decode(fmt, m.value) for m in (first, second)]
    synced = [r["tags"]["GTID_SET"] if fmt == "alibaba" else r["syncedGtid"] for r in records]
    assert synced == [f"{binlog.SOURCE_UUID}:1-{TS}", f"{binlog.SOURCE_UUID}:1-{TS + 2}"]
    assert records[0]["id"] == binlog.seq_id(TS, binlog.CHECKPOINT_INDEX)
    if fmt == "tencent":
        assert records[0]["messageType"] == "CHECKPOINT" and records[0]["fakeGtid"] is True
    else:
        assert records[0]["operation"] == "CHECKPOINT" and records[0]["sourceTxid"] == ""


@pytest.mark.parametrize("fmt", ["alibaba", "tencent"])
def test_checkpoint_every_advance_with_interval_zero(fmt: str) -> None:
    enc = encoder(fmt, interval_s=0)
    assert all(enc.encode_checkpoint(TS + i) is not None for i in range(3))


@pytest.mark.parametrize("fmt", ["alibaba", "tencent"])
def test_record_over_max_message_bytes(fmt: str, table: TableInfo) -> None:
    rows = [RowChangedEvent(START, TS, table, after={"id": 1, "email": "x" * 400})]
    assert encoder(fmt, max_message_bytes=1000).encode_rows(rows).records
    with pytest.raises(MessageTooLargeError, match=r"shop\.eu\.orders"):
        encoder(fmt, max_message_bytes=400).encode_rows(rows)


@pytest.mark.parametrize("fmt", ["alibaba", "tencent"])
def test_same_input_same_bytes(fmt: str, table: TableInfo) -> None:
    """Coordinates come from the TSOs, so two encoders agree byte for byte."""
    one = encoder(fmt, 5).encode_rows(_rows(table)).records
    two = encoder(fmt, 5).encode_rows(_rows(table)).records
    assert one == two


@pytest.mark.parametrize("fmt", ["alibaba", "tencent"])
@pytest.mark.parametrize(
    "settings",
    [
        {"large_message_handle_option": "handle-key-only"},
        {"large_message_handle_compression": "lz4"},
    ],
)
def test_large_message_settings_are_refused(fmt: str, settings: dict[str, str]) -> None:
    with pytest.raises(ConfigError, match="large-message-handle"):
        encoder(fmt, **settings)


@pytest.mark.parametrize("fmt", ["alibaba", "tencent"])
def test_heartbeat_record(fmt: str) -> None:
    """A HEARTBEAT record at the clock's time, numbered after the rows at its ts and before
    the checkpoint there."""
    enc = encoder(fmt, 1_715_930_604_250)
    message = enc.encode_heartbeat(TS)
    assert message.type is MessageType.HEARTBEAT and message.key is None
    record = decode(fmt, message.value)
    assert record["id"] == binlog.seq_id(TS, binlog.HEARTBEAT_INDEX)
    assert binlog.seq_id(TS, 0) < record["id"] < binlog.seq_id(TS, binlog.CHECKPOINT_INDEX)
    if fmt == "tencent":
        assert record["messageType"] == "HEARTBEAT"
        assert record["heartbeatTimestamp"] == record["timestamp"] == 1_715_930_604
        assert record["readerTimestamp"] == 1_715_930_604_250
        assert record["syncedGtid"] is None and record["gtid"] == ""
    else:
        assert record["operation"] == "HEARTBEAT"
        assert record["sourceTimestamp"] == 1_715_930_604
        assert record["bornTimestamp"] == 1_715_930_604_250
        assert record["objectName"] is None and record["afterImages"] is None
        assert "GTID" not in record["tags"] and "GTID_SET" not in record["tags"]
