"""``MQDMLSink.run_timers`` (the ``RunsTimers`` capability): the cadence and heartbeat checks run
at that place in the stream, after everything handed over before, ahead of anything after."""

from __future__ import annotations

import pytest

from tests.eventsink.mq.test_dml_sink_cadence import TOPIC, kinds, txn
from tisink.codec.bootstrap import BootstrapCadence, BootstrapSettings
from tisink.codec.debug import DebugEncoder
from tisink.codec.message import MessageType
from tisink.core.clock import FixedClock
from tisink.eventsink.capabilities import RunsTimers
from tisink.eventsink.errors import SinkDeadError
from tisink.eventsink.mq.dml_sink import MQDMLSink
from tisink.eventsink.router import EventRouter

B, D = MessageType.BOOTSTRAP, MessageType.DML


def _sink(producer, clock, settings=None) -> MQDMLSink:
    cadence = BootstrapCadence(settings or BootstrapSettings(), clock)
    return MQDMLSink(producer, DebugEncoder(clock), EventRouter(TOPIC), cadence, scheme="t")


async def test_due_bootstrap_lands_between_what_came_before_and_after(
    fake_producer, make_mq_table
) -> None:
    clock = FixedClock(1_000_000)
    producer = fake_producer(partitions=1)
    sink = _sink(producer, clock)
    assert isinstance(sink, RunsTimers)
    table = make_mq_table()
    sink.write_events([txn(table, 10, 1)])
    await sink.run_timers()  # nothing due yet: the first row's BOOTSTRAP only
    sink.write_events([txn(table, 11, 2)])
    clock.advance(121_000)  # the interval passed while txn 11 waited in the queue
    await sink.run_timers()
    sink.write_events([txn(table, 12, 3)])
    await sink.close()
    assert kinds(producer, 0) == [B, D, D, B, D]


async def test_without_timers_it_returns_at_once(fake_producer, make_mq_table) -> None:
    producer = fake_producer(partitions=1)
    sink = _sink(producer, FixedClock(0), BootstrapSettings(send_bootstrap_in_msg_count=0))
    await sink.run_timers()
    sink.write_events([txn(make_mq_table(), 10, 1)])
    await sink.close()
    assert kinds(producer, 0) == [D]


async def test_a_sink_that_dies_releases_the_caller(fake_producer, make_mq_table) -> None:
    class Broken(DebugEncoder):
        def encode_rows(self, rows):
            raise ValueError("bad row")

    clock = FixedClock(0)
    cadence = BootstrapCadence(BootstrapSettings(), clock)
    producer = fake_producer(partitions=1)
    sink = MQDMLSink(producer, Broken(clock), EventRouter(TOPIC), cadence, scheme="t")
    sink.write_events([txn(make_mq_table(), 10, 1)])
    with pytest.raises(SinkDeadError, match="bad row"):
        await sink.run_timers()
    with pytest.raises(SinkDeadError):
        await sink.run_timers()
    await sink.close()
