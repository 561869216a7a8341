"""MQDMLSink with heartbeats (``protocol=tencent-dts``) over the fake producer on a FixedClock:
idle partitions get a HEARTBEAT after a batch and on the idle tick; busy ones do not."""

from __future__ import annotations

import asyncio

import pytest

from tisink.codec.config import EncoderConfig
from tisink.codec.debug import DebugEncoder
from tisink.codec.dts.tencent import reader
from tisink.codec.dts.tencent.encoder import TencentProtobufEncoder
from tisink.codec.dts.tencent.enums import MessageType as TencentType
from tisink.codec.message import Message, MessageType, Record
from tisink.core.clock import FixedClock
from tisink.eventsink.base import CallbackableEvent, StateRef
from tisink.eventsink.errors import EventSinkError
from tisink.eventsink.mq import dml_sink
from tisink.eventsink.mq.dml_sink import MQDMLSink
from tisink.eventsink.mq.heartbeats import IdlePartitions
from tisink.eventsink.router import EventRouter
from tisink.model.events import RowChangedEvent, SingleTableTxn
from tisink.model.tso import compose_ts

TOPIC = "dts"
START_MS = 1_715_930_562_000


def txn(table, commit_ms: int, row_id: int) -> CallbackableEvent[SingleTableTxn]:
    ts = compose_ts(commit_ms)
    row = RowChangedEvent(ts - 1, ts, table, after={"id": row_id, "v": "x"})
    return CallbackableEvent(SingleTableTxn(ts - 1, ts, table, [row]), lambda: None, StateRef())


_KINDS = {
    TencentType.DML: MessageType.DML,
    TencentType.HEARTBEAT: MessageType.HEARTBEAT,
}


def read_envelope(record: Record) -> Message:
    """The record as a Message typed by its first entry: DML for a transaction (BEGIN)."""
    items = reader.entries(reader.envelope(record[1]).data)
    kind = items[0].header.message_type
    kind = TencentType.DML if kind == TencentType.BEGIN else kind
    return Message(record[1], record[0], _KINDS[kind])


def kinds(producer, partition: int) -> list[MessageType]:
    return [m.type for m in producer.messages(TOPIC, partition)]


async def settle(sink: MQDMLSink) -> None:
    for _ in range(50):
        await asyncio.sleep(0)
    await sink.wait_for_capacity()
    for _ in range(50):
        await asyncio.sleep(0)


def new_sink(producer, clock: FixedClock) -> MQDMLSink:
    encoder = TencentProtobufEncoder(EncoderConfig(protocol="tencent-dts"), clock)
    heartbeats = IdlePartitions(10_000, clock)
    return MQDMLSink(producer, encoder, EventRouter(TOPIC), None, scheme="t", heartbeats=heartbeats)


async def test_idle_partitions_get_heartbeats_after_a_batch(fake_producer, make_mq_table):
    clock = FixedClock(START_MS)
    producer = fake_producer(partitions=3, read=read_envelope)
    sink = new_sink(producer, clock)
    table = make_mq_table()
    sink.write_events([txn(table, START_MS, 1)])
    await settle(sink)
    busy = next(p for p in range(3) if kinds(producer, p))
    assert all(not kinds(producer, p) for p in range(3) if p != busy)
    clock.advance(10_000)
    # the same key keeps its partition busy; the other two have been idle for 10 s
    sink.write_events([txn(table, START_MS + 10_000, 1)])
    await settle(sink)
    for partition in range(3):
        expected = [MessageType.DML] * 2 if partition == busy else [MessageType.HEARTBEAT]
        assert kinds(producer, partition) == expected
    assert sink.stats().message_count(MessageType.HEARTBEAT) == 2
    await sink.close()


async def test_idle_tick_sends_heartbeats_without_rows(
    fake_producer, make_mq_table, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(dml_sink, "IDLE_TICK_SECONDS", 0.01)
    clock = FixedClock(START_MS)
    producer = fake_producer(partitions=2, read=read_envelope)
    sink = new_sink(producer, clock)
    sink.write_events([txn(make_mq_table(), START_MS, 1)])
    await settle(sink)
    before = {p: len(kinds(producer, p)) for p in range(2)}
    clock.advance(25_000)
    await asyncio.sleep(0.1)
    after = {p: kinds(producer, p)[before[p] :] for p in range(2)}
    # every partition idle: one heartbeat each, not one per tick
    assert after == {0: [MessageType.HEARTBEAT], 1: [MessageType.HEARTBEAT]}
    await sink.close()


def test_an_encoder_without_heartbeats_is_refused(fake_producer):
    clock = FixedClock(0)
    with pytest.raises(EventSinkError, match="cannot encode heartbeats"):
        MQDMLSink(
            fake_producer(),
            DebugEncoder(clock),
            EventRouter(TOPIC),
            None,
            scheme="t",
            heartbeats=IdlePartitions(1, clock),
        )
