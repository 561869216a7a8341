"""MQDMLSink with the real BootstrapCadence on a FixedClock: the first-row bootstrap, the
interval trigger after a batch, and the idle tick that still sends due bootstraps."""

from __future__ import annotations

import asyncio

import pytest

from tisink.codec.bootstrap import BootstrapCadence, BootstrapSettings
from tisink.codec.debug import DebugEncoder
from tisink.codec.message import MessageType
from tisink.core.clock import FixedClock
from tisink.eventsink.base import CallbackableEvent, StateRef
from tisink.eventsink.mq import dml_sink
from tisink.eventsink.mq.dml_sink import MQDMLSink
from tisink.eventsink.router import EventRouter
from tisink.model.events import RowChangedEvent, SingleTableTxn

TOPIC = "cdc"


def txn(table, commit_ts: int, row_id: int) -> CallbackableEvent[SingleTableTxn]:
    row = RowChangedEvent(commit_ts - 1, commit_ts, table, after={"id": row_id, "v": "x"})
    return CallbackableEvent(
        SingleTableTxn(commit_ts - 1, commit_ts, table, [row]), lambda: None, StateRef()
    )


def kinds(producer, partition: int) -> list[MessageType]:
    return [m.type for m in producer.messages(TOPIC, partition)]


async def drain(sink: MQDMLSink) -> None:
    for _ in range(100):
        await asyncio.sleep(0)
    await sink.wait_for_capacity()
    for _ in range(100):
        await asyncio.sleep(0)


@pytest.mark.parametrize("to_all", [True, False])
async def test_first_row_then_interval(fake_producer, make_mq_table, to_all):
    clock = FixedClock(1_000_000)
    config = BootstrapSettings(send_bootstrap_to_all_partition=to_all)
    producer = fake_producer(partitions=2)
    cadence = BootstrapCadence(config, clock)
    sink = MQDMLSink(producer, DebugEncoder(clock), EventRouter(TOPIC), cadence, scheme="t")
    table = make_mq_table()
    sink.write_events([txn(table, 10, 1), txn(table, 11, 2)])
    await drain(sink)
    row_partition = EventRouter(TOPIC).partition_for_row(
        RowChangedEvent(9, 10, table, after={"id": 1, "v": "x"}), 2
    )
    # with send-bootstrap-to-all-partition = false only partition 0 gets it (TiCDC)
    bootstrap_partition = row_partition if to_all else 0
    assert kinds(producer, bootstrap_partition)[0] is MessageType.BOOTSTRAP
    assert sum(MessageType.BOOTSTRAP in kinds(producer, p) for p in (0, 1)) == (2 if to_all else 1)
    expected_copies = 2 if to_all else 1
    assert sink.stats().message_count(MessageType.BOOTSTRAP) == expected_copies

    clock.advance(119_000)  # under the 120 s interval: nothing due
    sink.write_events([txn(table, 12, 3)])
    await drain(sink)
    assert sink.stats().message_count(MessageType.BOOTSTRAP) == expected_copies

    clock.advance(6_000)  # past the interval, and a tick is due
    sink.write_events([txn(table, 13, 4)])
    await drain(sink)
    assert sink.stats().message_count(MessageType.BOOTSTRAP) == 2 * expected_copies
    # the periodic bootstrap follows the batch that noticed it
    assert kinds(producer, bootstrap_partition)[-1] is MessageType.BOOTSTRAP
    await sink.close()


async def test_idle_worker_still_sends_due_bootstraps(fake_producer, make_mq_table, monkeypatch):
    monkeypatch.setattr(dml_sink, "IDLE_TICK_SECONDS", 0.01)
    clock = FixedClock(5_000_000)
    producer = fake_producer(partitions=1)
    cadence = BootstrapCadence(BootstrapSettings(), clock)
    sink = MQDMLSink(producer, DebugEncoder(clock), EventRouter(TOPIC), cadence, scheme="t")
    sink.write_events([txn(make_mq_table(), 10, 1)])
    await drain(sink)
    assert kinds(producer, 0) == [MessageType.BOOTSTRAP, MessageType.DML]
    clock.advance(121_000)
    await asyncio.sleep(0.1)
    assert kinds(producer, 0) == [MessageType.BOOTSTRAP, MessageType.DML, MessageType.BOOTSTRAP]
    await sink.close()


async def test_disabled_cadence_sends_no_bootstrap(fake_producer, make_mq_table):
    clock = FixedClock(0)
    producer = fake_producer(partitions=1)
    cadence = BootstrapCadence(BootstrapSettings(send_bootstrap_in_msg_count=0), clock)
    sink = MQDMLSink(producer, DebugEncoder(clock), EventRouter(TOPIC), cadence, scheme="t")
    sink.write_events([txn(make_mq_table(), 10, 1)])
    await sink.close()
    assert kinds(producer, 0) == [MessageType.DML]
