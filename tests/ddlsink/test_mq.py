"""MQDDLSink: DDL and bootstraps broadcast to every partition of the DDL topic, watermarks to every
partition of every active topic, only on advance."""

from __future__ import annotations

from collections.abc import Sequence

import orjson
import pytest

from tests.records import as_message
from tisink.codec.config import EncoderConfig
from tisink.codec.debug import DebugEncoder
from tisink.codec.errors import MessageTooLargeError
from tisink.codec.message import Message, MessageType, Record
from tisink.codec.simple.encoder import SimpleEncoder
from tisink.core.clock import FixedClock
from tisink.ddlsink.errors import DDLSinkError
from tisink.ddlsink.mq import MQDDLSink
from tisink.eventsink.router import DispatchRule, EventRouter
from tisink.model.events import DDLEvent, DDLType
from tisink.model.table import ColumnInfo, TableInfo, make_table


class RecordingProducer:
    def __init__(self, partitions: dict[str, int], fail: tuple[str, int] | None = None) -> None:
        self.partitions = partitions
        self.fail = fail
        self.sent: list[tuple[str, int, Message]] = []
        self.closed = False

    async def partition_count(self, topic: str) -> int:
        return self.partitions.get(topic, 2)

    async def send(self, topic: str, partition: int, records: Sequence[Record]) -> None:
        if (topic, partition) == self.fail:
            raise OSError("disk full")
        self.sent += [(topic, partition, as_message(r)) for r in records]

    async def close(self) -> None:
        self.closed = True


def table(schema: str, name: str, table_id: int) -> TableInfo:
    return make_table(schema, name, table_id, 1, [ColumnInfo("id", "int")])


ROUTER = EventRouter(
    "cdc", [DispatchRule(("shop.*",), topic="shop_{table}"), DispatchRule(("hr.*",), topic="hr")]
)


async def test_ddl_goes_to_every_partition_of_its_topic_with_a_null_key():
    producer = RecordingProducer({"shop_orders": 3})
    sink = MQDDLSink(producer, DebugEncoder(), ROUTER)
    orders = table("shop", "orders", 5)
    await sink.write_ddl_event(DDLEvent(100, DDLType.CREATE, "CREATE TABLE orders", orders))
    assert [(t, p) for t, p, _ in producer.sent] == [("shop_orders", p) for p in range(3)]
    assert all(m.key is None and m.type is MessageType.DDL for _, _, m in producer.sent)
    assert len({m.value for _, _, m in producer.sent}) == 1
    assert sink.stats().message_count(MessageType.DDL) == 3


async def test_rename_goes_to_the_topic_of_the_old_name():
    producer = RecordingProducer({})
    sink = MQDDLSink(producer, DebugEncoder(), ROUTER)
    before, after = table("shop", "old", 5), table("shop", "new", 5)
    await sink.write_ddl_event(DDLEvent(100, DDLType.RENAME, "RENAME", after, pre_table=before))
    assert {t for t, _, _ in producer.sent} == {"shop_old"}


async def test_watermark_only_on_advance_to_all_active_topics_and_default():
    producer = RecordingProducer({"cdc": 1, "hr": 2, "shop_orders": 3, "shop_items": 1})
    sink = MQDDLSink(producer, DebugEncoder(), ROUTER)
    tables = [table("shop", "orders", 1), table("hr", "people", 2), table("hr", "pay", 3)]
    await sink.write_checkpoint_ts(50, tables)
    targets = sorted((t, p) for t, p, _ in producer.sent)
    assert targets == [("cdc", 0), ("hr", 0), ("hr", 1)] + [("shop_orders", p) for p in range(3)]
    assert {orjson.loads(m.value)["commitTs"] for _, _, m in producer.sent} == {50}
    assert all(m.type is MessageType.WATERMARK and m.key is None for _, _, m in producer.sent)
    count = len(producer.sent)
    await sink.write_checkpoint_ts(50, tables)
    await sink.write_checkpoint_ts(40, tables)
    assert len(producer.sent) == count
    await sink.write_checkpoint_ts(51, [])
    assert [(t, p) for t, p, _ in producer.sent[count:]] == [("cdc", 0)]
    assert sink.last_checkpoint_ts == 51


async def test_too_large_ddl_names_the_table():
    class Strict(DebugEncoder):
        def encode_ddl(self, ddl: DDLEvent) -> Message:
            raise MessageTooLargeError("message of 11 MiB exceeds max-message-bytes 10 MiB")

    sink = MQDDLSink(RecordingProducer({}), Strict(), ROUTER)
    with pytest.raises(DDLSinkError, match=r"shop\.orders.*max-message-bytes"):
        await sink.write_ddl_event(DDLEvent(9, DDLType.ALTER, "ALTER", table("shop", "orders", 1)))


async def test_send_failure_names_topic_and_partition():
    producer = RecordingProducer({"shop_orders": 3}, fail=("shop_orders", 2))
    sink = MQDDLSink(producer, DebugEncoder(), ROUTER)
    with pytest.raises(DDLSinkError, match=r"'shop_orders' partition 2 failed: disk full"):
        await sink.write_ddl_event(DDLEvent(9, DDLType.ALTER, "ALTER", table("shop", "orders", 1)))
    with pytest.raises(DDLSinkError, match="partition 2"):
        await sink.write_checkpoint_ts(10, [table("shop", "orders", 1)])
    assert sink.last_checkpoint_ts == 0, "a failed watermark does not count as sent"


async def test_bootstrap_at_start_uses_the_ddl_path():
    producer = RecordingProducer({"hr": 2})
    encoder = SimpleEncoder(EncoderConfig(), FixedClock(1))
    sink = MQDDLSink(producer, encoder, ROUTER, bootstrap_at_start=True)
    tables = [table("hr", "people", 2), table("misc", "x", 3)]
    await sink.write_bootstrap_at_start(tables)
    assert [(t, p) for t, p, _ in producer.sent] == [("hr", 0), ("hr", 1), ("cdc", 0), ("cdc", 1)]
    expected = [encoder.encode_bootstrap(t) for t in tables]
    sent = [m for _, _, m in producer.sent]
    assert [m.value for m in sent] == [expected[0].value] * 2 + [expected[1].value] * 2
    assert all(m.type is MessageType.BOOTSTRAP and m.key == b"" for m in sent)
    await sink.close()
    assert producer.closed


class NoBootstraps(DebugEncoder):
    def encode_bootstrap(self, table: TableInfo) -> None:
        return None


async def test_bootstrap_at_start_is_off_by_default_and_for_protocols_without_bootstraps():
    producer = RecordingProducer({"hr": 2})
    await MQDDLSink(producer, SimpleEncoder(EncoderConfig()), ROUTER).write_bootstrap_at_start(
        [table("hr", "people", 2)]
    )
    sink = MQDDLSink(producer, NoBootstraps(), ROUTER, bootstrap_at_start=True)
    await sink.write_bootstrap_at_start([table("hr", "people", 2)])
    assert producer.sent == []


async def test_a_columns_dispatcher_missing_its_column_fails_at_the_tables_ddl():
    """Found when the table's DDL arrives (nothing of it sent), not at its first row."""
    router = EventRouter("cdc", [DispatchRule(("shop.*",), partition="columns", columns=("nope",))])
    producer = RecordingProducer({})
    sink = MQDDLSink(producer, DebugEncoder(), router)
    orders = table("shop", "orders", 5)
    with pytest.raises(DDLSinkError, match=r"CREATE shop\.orders.*column 'nope'"):
        await sink.write_ddl_event(DDLEvent(100, DDLType.CREATE, "CREATE TABLE orders", orders))
    assert producer.sent == []
    await sink.write_ddl_event(DDLEvent(101, DDLType.ERASE, "DROP TABLE orders", orders))
