"""The Kafka DML and DDL sinks as the sink factory assembles them: Simple JSON through the
broker, read back with confluent-kafka."""

from __future__ import annotations

import asyncio

import orjson

from tests.kafka_support.readback import read_partition, unique_topic
from tisink.core.clock import FixedClock
from tisink.eventsink.base import CallbackableEvent, StateRef
from tisink.model.events import RowChangedEvent, SingleTableTxn
from tisink.model.table import ColumnInfo, IndexInfo, make_table
from tisink.sink import SinkFactory

TABLE = make_table(
    "test",
    "t",
    42,
    100,
    [ColumnInfo("id", "int", nullable=False), ColumnInfo("v", "varchar", "utf8mb4")],
    [IndexInfo("primary", ("id",), unique=True, primary=True)],
)
#: spec 7.5: test.t on 3 partitions goes to crc32("testt") % 3 = 1 under the default rule
ROW_PARTITION = 1


def _types(records: list[tuple[bytes | None, bytes | None]]) -> list[tuple[bytes | None, str]]:
    return [(key, orjson.loads(value or b"null")["type"]) for key, value in records]


async def test_rows_then_watermark_reach_kafka(kafka_bootstrap: str) -> None:
    topic = unique_topic("sink")
    clock = FixedClock(1_700_000_000_000)
    factory = SinkFactory(f"kafka://{kafka_bootstrap}/{topic}?partition-num=3", clock=clock)
    dml = await factory.create_event_sink()
    rows = [RowChangedEvent(1000, 1001, TABLE, after={"id": i, "v": f"r{i}"}) for i in range(3)]
    acked: list[int] = []
    dml.write_events(
        [
            CallbackableEvent(
                SingleTableTxn(1000, 1001, TABLE, rows), lambda: acked.append(1), StateRef()
            )
        ]
    )
    await dml.close()
    assert acked == [1]

    ddl = await factory.create_ddl_sink()
    await ddl.write_checkpoint_ts(1001, [TABLE])
    await ddl.close()

    for partition in range(3):
        expected = [(b"", "BOOTSTRAP")]
        if partition == ROW_PARTITION:
            expected += [(b"", "INSERT")] * 3
        expected.append((None, "WATERMARK"))
        records = await asyncio.to_thread(
            read_partition, kafka_bootstrap, topic, partition, len(expected)
        )
        assert _types(records) == expected
