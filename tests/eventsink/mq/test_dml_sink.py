"""MQDMLSink over a fake producer: ordering, txn callbacks, failure, bootstraps, back-pressure."""

from __future__ import annotations

import asyncio
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.codec.debug import DebugEncoder
from tisink.codec.errors import MessageTooLargeError
from tisink.codec.message import Message, MessageType
from tisink.eventsink.base import CallbackableEvent, StateRef, TableSinkState
from tisink.eventsink.errors import EventSinkError, SinkDeadError
from tisink.eventsink.mq.dml_sink import MQDMLSink
from tisink.eventsink.router import DispatchRule, EventRouter
from tisink.model.events import RowChangedEvent, SingleTableTxn
from tisink.model.table import TableInfo

TOPIC = "events"
BY_ID = EventRouter(TOPIC, [DispatchRule(("*.*",), partition="index-value")])


def make_txn(table: TableInfo, commit_ts: int, ids: list[int]) -> SingleTableTxn:
    rows = [
        RowChangedEvent(commit_ts - 1, commit_ts, table, after={"id": i, "v": f"r{i}"}) for i in ids
    ]
    return SingleTableTxn(commit_ts - 1, commit_ts, table, rows)


class Acks:
    """Callback bookkeeping: which txns (by commitTs) fired, in what order."""

    def __init__(self) -> None:
        self.fired: list[int] = []

    def event(self, txn: SingleTableTxn, state: StateRef | None = None):
        return CallbackableEvent(txn, lambda: self.fired.append(txn.commit_ts), state or StateRef())


def decoded(message: Message) -> tuple[str, int, int | None]:
    body = orjson.loads(message.value)
    after = body.get("after")
    return body["type"], body["commitTs"], after["id"] if after else None


async def settle(sink: MQDMLSink) -> None:
    """Let the worker and senders run until nothing is queued or in flight."""
    for _ in range(200):
        await asyncio.sleep(0)
    if sink.error is None:
        await sink.wait_for_capacity()
    for _ in range(50):
        await asyncio.sleep(0)


async def test_rows_keep_order_per_partition_and_callbacks_fire(fake_producer, make_mq_table):
    producer = fake_producer(partitions=4)
    sink = MQDMLSink(producer, DebugEncoder(), BY_ID, None, scheme="fake")
    acks = Acks()
    t1, t2 = make_mq_table("a", 1), make_mq_table("b", 2)
    txns = [
        make_txn(t1 if n % 2 else t2, 1000 + n, list(range(n * 5, n * 5 + 5))) for n in range(20)
    ]
    sink.write_events([acks.event(t) for t in txns[:10]])
    sink.write_events([acks.event(t) for t in txns[10:]])
    await sink.close()

    assert sorted(acks.fired) == [t.commit_ts for t in txns]
    for partition in range(4):
        got = [decoded(m)[1:] for m in producer.messages(TOPIC, partition)]
        expected = [
            (row.commit_ts, row.after["id"])
            for t in txns
            for row in t.rows
            if BY_ID.partition_for_row(row, 4) == partition
        ]
        assert got == expected
    assert producer.closed
    stats = sink.stats()
    assert stats.message_count(MessageType.DML) == 100
    assert stats.rows == 100
    assert stats.inflight_bytes == 0
    assert stats.bytes == sum(m.length() for p in range(4) for m in producer.messages(TOPIC, p))


async def test_txn_callback_waits_for_every_row(fake_producer, make_mq_table):
    producer = fake_producer(partitions=4)
    sink = MQDMLSink(producer, DebugEncoder(), BY_ID, None, scheme="fake")
    t = make_mq_table()
    txn = make_txn(t, 500, list(range(12)))
    partitions = sorted({BY_ID.partition_for_row(r, 4) for r in txn.rows})
    assert len(partitions) > 1, "the txn must span partitions for this test to mean anything"
    for p in partitions:
        producer.gate(TOPIC, p)
    acks = Acks()
    sink.write_events([acks.event(txn)])
    for p in partitions[:-1]:
        producer.release(TOPIC, p)
        await asyncio.sleep(0.01)
        assert acks.fired == []
    producer.release(TOPIC, partitions[-1])
    await settle(sink)
    assert acks.fired == [500]
    await sink.close()


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(min_value=1, max_value=6), min_size=1, max_size=12),
    delays=st.lists(st.integers(min_value=0, max_value=3), min_size=3, max_size=3),
)
def test_property_each_callback_once_after_all_rows(sizes, delays, make_mq_table):
    async def run() -> None:
        acked_rows: set[tuple[int, int]] = set()

        class Delayed:
            async def partition_count(self, topic: str) -> int:
                return 3

            async def send(self, topic, partition, records):
                for _ in range(delays[partition]):
                    await asyncio.sleep(0)
                for _key, value in records:
                    _, commit_ts, row_id = decoded(Message(value))
                    acked_rows.add((commit_ts, row_id))

            async def close(self) -> None:
                return None

        sink = MQDMLSink(Delayed(), DebugEncoder(), BY_ID, None, scheme="fake")
        t = make_mq_table()
        txns, next_id = [], 0
        for n, size in enumerate(sizes):
            txns.append(make_txn(t, 10 + n, list(range(next_id, next_id + size))))
            next_id += size
        fired: list[int] = []

        def callback_for(txn: SingleTableTxn):
            def fire() -> None:
                assert all((txn.commit_ts, r.after["id"]) in acked_rows for r in txn.rows)
                fired.append(txn.commit_ts)

            return fire

        sink.write_events([CallbackableEvent(x, callback_for(x), StateRef()) for x in txns])
        await sink.close()
        assert sorted(fired) == [x.commit_ts for x in txns]

    asyncio.run(run())


async def test_failure_kills_the_sink_and_names_topic_partition_and_table(
    fake_producer, make_mq_table
):
    producer = fake_producer(partitions=4)
    sink = MQDMLSink(producer, DebugEncoder(), BY_ID, None, scheme="fake")
    t = make_mq_table()
    txns = [make_txn(t, 100 + n, [n]) for n in range(16)]
    doomed = BY_ID.partition_for_row(txns[0].rows[0], 4)
    producer.failing[(TOPIC, doomed)] = RuntimeError("broker said no")
    acks = Acks()
    sink.write_events([acks.event(x) for x in txns])
    await settle(sink)

    assert isinstance(sink.error, EventSinkError)
    message = str(sink.error)
    assert repr(TOPIC) in message and f"partition {doomed}" in message
    assert "broker said no" in message and t.qualified_name in message
    unacked = {x.commit_ts for x in txns if BY_ID.partition_for_row(x.rows[0], 4) == doomed}
    assert unacked and not unacked & set(acks.fired)
    with pytest.raises(SinkDeadError):
        sink.write_events([acks.event(make_txn(t, 999, [999]))])
    with pytest.raises(SinkDeadError):
        await sink.wait_for_capacity()
    await sink.close()


async def test_encode_failure_kills_the_sink_naming_the_row(fake_producer, make_mq_table):
    class TooLarge(DebugEncoder):
        def encode_row(self, row: RowChangedEvent) -> Message:
            raise MessageTooLargeError(f"table {row.table.qualified_name}: 20 MiB > 10 MiB")

    sink = MQDMLSink(fake_producer(), TooLarge(), BY_ID, None, scheme="fake")
    acks = Acks()
    sink.write_events([acks.event(make_txn(make_mq_table(), 7, [1]))])
    await settle(sink)
    assert "test.t" in str(sink.error) and "commitTs=7" in str(sink.error)
    assert acks.fired == []
    await sink.close()


async def test_rows_of_a_stopping_table_are_dropped_but_acknowledged(fake_producer, make_mq_table):
    producer = fake_producer()
    sink = MQDMLSink(producer, DebugEncoder(), BY_ID, None, scheme="fake")
    acks = Acks()
    stopping = StateRef(TableSinkState.STOPPING)
    sink.write_events([acks.event(make_txn(make_mq_table(), 5, [1, 2]), stopping)])
    sink.write_events([acks.event(make_txn(make_mq_table(), 6, []))])
    await sink.close()
    assert acks.fired == [5, 6]
    assert producer.batches == {}
    assert sink.stats().skipped_txns == 1


async def test_bootstrap_precedes_first_row_on_every_partition(
    fake_producer, scripted_cadence, make_mq_table
):
    producer = fake_producer(partitions=3)
    cadence = scripted_cadence()
    sink = MQDMLSink(producer, DebugEncoder(), BY_ID, cadence, scheme="fake")
    t = make_mq_table()
    acks = Acks()
    sink.write_events([acks.event(make_txn(t, 10, list(range(9))))])
    await settle(sink)
    firsts = [producer.messages(TOPIC, p)[0] for p in range(3)]
    assert all(m.type is MessageType.BOOTSTRAP for m in firsts)
    assert all(m.key == b"" for m in firsts), "the DML path's key is empty, not null"
    assert len({m.value for m in firsts}) == 1, "one encoding, the same bytes everywhere"
    for p in range(3):
        kinds = [m.type for m in producer.messages(TOPIC, p)]
        assert kinds.count(MessageType.BOOTSTRAP) == 1
    assert cadence.calls[0] == ("test.t", TOPIC, 3)
    assert len(cadence.calls) == 9, "the cadence is asked before every row"
    await sink.close()


async def test_due_bootstraps_are_sent_after_a_batch(
    fake_producer, scripted_cadence, make_mq_table
):
    producer = fake_producer(partitions=3)
    cadence = scripted_cadence()
    sink = MQDMLSink(producer, DebugEncoder(), BY_ID, cadence, scheme="fake")
    t = make_mq_table()
    sink.write_events([Acks().event(make_txn(t, 10, [1]))])
    await settle(sink)
    before = [len(producer.messages(TOPIC, p)) for p in range(3)]
    cadence.due.append(cadence.Send(t, TOPIC, (0,)))
    second = make_txn(t, 11, [2])
    sink.write_events([Acks().event(second)])
    await settle(sink)
    row_partition = BY_ID.partition_for_row(second.rows[0], 3)
    for p in range(3):
        added = producer.messages(TOPIC, p)[before[p] :]
        expected = [MessageType.DML] if p == row_partition else []
        if p == 0:
            expected.append(MessageType.BOOTSTRAP)
        assert [m.type for m in added] == expected
    assert sink.stats().message_count(MessageType.BOOTSTRAP) == 4
    await sink.close()


async def test_back_pressure_holds_until_acks_free_capacity(fake_producer, make_mq_table):
    producer = fake_producer(partitions=1)
    router = EventRouter(TOPIC)
    sink = MQDMLSink(producer, DebugEncoder(), router, None, scheme="fake", max_inflight_bytes=500)
    producer.gate(TOPIC, 0)
    t = make_mq_table()
    acks = Acks()
    sink.write_events([acks.event(make_txn(t, 100 + n, [n])) for n in range(20)])
    waiter = asyncio.ensure_future(sink.wait_for_capacity())
    await asyncio.sleep(0.02)
    assert not waiter.done()
    assert 500 <= sink.inflight_bytes < 1000, "the worker stops encoding past the limit"
    producer.release(TOPIC, 0)
    await asyncio.wait_for(waiter, 2)
    await sink.close()
    assert len(acks.fired) == 20


async def test_claim_check_payload_is_stored_before_the_send(
    fake_producer, make_mq_table, tmp_path
):
    location = f"file://{tmp_path}/claims/abc.json"

    class ClaimChecking(DebugEncoder):
        def encode_row(self, row: RowChangedEvent) -> Message:
            message = super().encode_row(row)
            message.claim_check = (location, b'{"key":null,"value":"AAAA"}')
            return message

    producer = fake_producer(partitions=1)
    seen_at_send: list[bool] = []
    producer.on_send = lambda *_: seen_at_send.append(Path(tmp_path, "claims/abc.json").exists())
    sink = MQDMLSink(producer, ClaimChecking(), EventRouter(TOPIC), None, scheme="fake")
    sink.write_events([Acks().event(make_txn(make_mq_table(), 3, [1]))])
    await sink.close()
    assert seen_at_send == [True]
    assert Path(tmp_path, "claims/abc.json").read_bytes() == b'{"key":null,"value":"AAAA"}'
    assert sink.stats().claim_checks == 1


async def test_unsupported_claim_check_storage_kills_the_sink(fake_producer, make_mq_table):
    class S3(DebugEncoder):
        def encode_row(self, row: RowChangedEvent) -> Message:
            message = super().encode_row(row)
            message.claim_check = ("s3://bucket/x.json", b"{}")
            return message

    sink = MQDMLSink(fake_producer(), S3(), EventRouter(TOPIC), None, scheme="fake")
    sink.write_events([Acks().event(make_txn(make_mq_table(), 3, [1]))])
    await settle(sink)
    assert "s3://bucket/x.json" in str(sink.error)
    await sink.close()


def test_write_events_needs_a_running_loop(fake_producer, make_mq_table):
    sink = MQDMLSink(fake_producer(), DebugEncoder(), EventRouter(TOPIC), None, scheme="fake")
    sink.write_events([])  # a health check needs no loop
    with pytest.raises(EventSinkError, match="running asyncio loop"):
        sink.write_events([Acks().event(make_txn(make_mq_table(), 3, [1]))])


async def test_closed_sink_refuses_events(fake_producer, make_mq_table):
    sink = MQDMLSink(fake_producer(), DebugEncoder(), EventRouter(TOPIC), None, scheme="fake")
    await sink.close()
    with pytest.raises(EventSinkError, match="closed"):
        sink.write_events([Acks().event(make_txn(make_mq_table(), 3, [1]))])
