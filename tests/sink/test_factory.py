"""SinkFactory end to end over the file scheme: table sink -> MQ DML sink -> files, and DDL sink
watermarks; read back with the file reader and checked message by message."""

from __future__ import annotations

import asyncio
import logging

import orjson
import pytest

from tisink.core.clock import FixedClock
from tisink.eventsink.blackhole import BlackholeSink
from tisink.eventsink.file import list_file_topics, read_file_topic
from tisink.eventsink.mq.dml_sink import MQDMLSink
from tisink.logsink import LogSink
from tisink.model.events import DDLEvent, DDLType, ResolvedTs, RowChangedEvent
from tisink.model.table import ColumnInfo, IndexInfo, make_table
from tisink.model.tso import compose_ts
from tisink.sink import ChangefeedConfig, SinkFactory
from tisink.sink.errors import UnknownSchemeError

ORDERS = make_table(
    "shop",
    "orders",
    10,
    compose_ts(1_700_000_000_000),
    [
        ColumnInfo("id", "int", nullable=False),
        ColumnInfo("note", "varchar", "utf8mb4", "utf8mb4_bin"),
    ],
    [IndexInfo("primary", ("id",), unique=True, primary=True)],
)


async def until_checkpoint(table_sink, ts: int) -> None:
    """Closing a table sink drops rows not yet dispatched (TiCDC's STOPPING state), so wait for
    the checkpoint first, as the player does."""
    for _ in range(500):
        if table_sink.get_checkpoint_ts().resolved_mark >= ts:
            return
        await asyncio.sleep(0.002)
    raise AssertionError(f"checkpoint never reached {ts}")


def rows(count: int) -> list[RowChangedEvent]:
    out = []
    for n in range(count):
        ts = compose_ts(1_700_000_001_000 + n)
        out.append(RowChangedEvent(ts - 1, ts, ORDERS, after={"id": n, "note": f"n{n}"}))
    return out


async def play(directory, config: ChangefeedConfig | None = None, n_rows: int = 30) -> int:
    uri = f"file://{directory}?topic=cdc&partition-num=3&protocol=simple"
    factory = SinkFactory(uri, config, clock=FixedClock(1_700_000_100_000))
    event_sink = await factory.create_event_sink()
    ddl_sink = await factory.create_ddl_sink()
    assert isinstance(event_sink, MQDMLSink) and event_sink.scheme == "file"
    await ddl_sink.write_ddl_event(DDLEvent(ORDERS.version, DDLType.CREATE, "CREATE TABLE", ORDERS))
    table_sink = factory.create_table_sink(ORDERS.table_id, event_sink)
    batch = rows(n_rows)
    table_sink.append_row_changed_events(batch)
    table_sink.update_resolved_ts(ResolvedTs.normal(batch[-1].commit_ts))
    await event_sink.wait_for_capacity()
    await until_checkpoint(table_sink, batch[-1].commit_ts)
    await table_sink.close()
    await ddl_sink.write_checkpoint_ts(batch[-1].commit_ts, [ORDERS])
    await event_sink.close()
    await ddl_sink.close()
    return batch[-1].commit_ts


async def test_file_scheme_end_to_end(tmp_path):
    last_ts = await play(tmp_path)
    assert list_file_topics(tmp_path) == ["cdc"]
    records = list(read_file_topic(tmp_path, "cdc"))
    by_partition: dict[int, list[dict]] = {}
    for partition, offset, key, value in records:
        assert offset == len(by_partition.setdefault(partition, []))
        body = orjson.loads(value)
        body["_key"] = key
        by_partition[partition].append(body)
    assert sorted(by_partition) == [0, 1, 2]
    dml_ids = []
    for messages in by_partition.values():
        kinds = [m["type"] for m in messages]
        # the DDL comes first (written before any row), then the table's BOOTSTRAP before its
        # first row on every partition, the watermark last
        assert kinds[0] == "CREATE" and messages[0]["_key"] is None
        assert kinds[1] == "BOOTSTRAP" and messages[1]["_key"] == b""
        assert kinds[-1] == "WATERMARK" and messages[-1]["commitTs"] == last_ts
        assert messages[-1]["_key"] is None
        dml = [m for m in messages if m["type"] == "INSERT"]
        assert all(m["_key"] == b"" for m in dml)
        assert [m["commitTs"] for m in dml] == sorted(m["commitTs"] for m in dml)
        dml_ids += [m["data"]["id"] for m in dml]
    # the default partition rule is by table: every row on the same partition
    assert sorted(int(i) for i in dml_ids) == list(range(30))
    assert sum(1 for p in by_partition.values() if any(m["type"] == "INSERT" for m in p)) == 1


async def test_same_clock_same_bytes(tmp_path):
    await play(tmp_path / "a")
    await play(tmp_path / "b")
    first = list(read_file_topic(tmp_path / "a", "cdc"))
    assert first == list(read_file_topic(tmp_path / "b", "cdc"))


async def test_file_without_protocol_writes_debug_json(tmp_path):
    factory = SinkFactory(f"file://{tmp_path}")
    event_sink = await factory.create_event_sink()
    table_sink = factory.create_table_sink(ORDERS.table_id, event_sink)
    table_sink.append_row_changed_events(rows(2))
    table_sink.update_resolved_ts(ResolvedTs.normal(rows(2)[-1].commit_ts))
    await until_checkpoint(table_sink, rows(2)[-1].commit_ts)
    await table_sink.close()
    await event_sink.close()
    records = list(read_file_topic(tmp_path, "tidb-cdc"))
    assert [orjson.loads(v)["after"]["id"] for _, _, _, v in records] == [0, 1]
    assert {p for p, _, _, _ in records} == {0}, "one partition by default"


@pytest.mark.parametrize("table", ["sink.kafka-config", "sink.cloud-storage-config", "sink"])
@pytest.mark.parametrize(("raw", "expected_rows"), [(True, 1), (False, 2)])
async def test_output_raw_change_event_reaches_the_table_sink(tmp_path, table, raw, expected_rows):
    """TiCDC's places for the key (kafka-config, cloud-storage-config) and tisink's [sink]."""
    key = f"output-raw-change-event = {str(raw).lower()}"
    toml = "[sink]\nprotocol = 'debug'\n" + (key if table == "sink" else f"[{table}]\n{key}")
    factory = SinkFactory(f"file://{tmp_path}?protocol=simple", ChangefeedConfig.from_toml(toml))
    assert factory.config.protocol == "simple", "the URI overrides the file"
    event_sink = BlackholeSink()
    table_sink = factory.create_table_sink(ORDERS.table_id, event_sink, start_ts=42)
    assert table_sink.get_checkpoint_ts().resolved_mark == 42
    ts = compose_ts(1_700_000_002_000)
    pk_change = RowChangedEvent(
        ts - 1, ts, ORDERS, before={"id": 1, "note": "a"}, after={"id": 2, "note": "a"}
    )
    table_sink.append_row_changed_events([pk_change])
    table_sink.update_resolved_ts(ResolvedTs.normal(ts))
    assert event_sink.rows == expected_rows


async def test_log_and_blackhole_schemes(caplog):
    caplog.set_level(logging.INFO, logger="tisink.eventsink.log")
    factory = SinkFactory("log://")
    sink = await factory.create_event_sink()
    assert isinstance(sink, LogSink)
    table_sink = factory.create_table_sink(ORDERS.table_id, sink)
    table_sink.append_row_changed_events(rows(3))
    table_sink.update_resolved_ts(ResolvedTs.normal(rows(3)[-1].commit_ts))
    await sink.flush()  # the log sink writes on its own task
    assert sink.rows == 3
    assert table_sink.get_checkpoint_ts().resolved_mark == rows(3)[-1].commit_ts
    ddl = await SinkFactory("blackhole://").create_ddl_sink()
    await ddl.write_checkpoint_ts(5, [])


def test_unknown_scheme():
    with pytest.raises(UnknownSchemeError, match="available: blackhole"):
        SinkFactory("pulsar://127.0.0.1:6650/persistent://public/default/t")
