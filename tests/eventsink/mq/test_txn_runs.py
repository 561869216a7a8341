"""Runs of one table's transactions queued as one delivery (``TxnPipeline._queue_runs``):
callbacks never early, the bound on bytes in flight kept as txn by txn, per-txn deliveries
wherever something asks per transaction."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.eventsink.mq.test_dml_sink import BY_ID, TOPIC, Acks, decoded, make_txn, settle
from tisink.codec.debug import DebugEncoder
from tisink.codec.message import Message, MessageType, Record
from tisink.eventsink.base import CallbackableEvent, StateRef
from tisink.eventsink.mq.dml_sink import MQDMLSink
from tisink.eventsink.mq.producer import Mark
from tisink.model.events import SingleTableTxn


def _two_partition_txns(table) -> tuple[SingleTableTxn, SingleTableTxn, int, int]:
    """Two one-row txns of ``table`` whose rows go to different partitions (of 3)."""
    first = make_txn(table, 100, [0])
    p0 = BY_ID.partition_for_row(first.rows[0], 3)
    for n in range(1, 50):
        second = make_txn(table, 101, [n])
        p1 = BY_ID.partition_for_row(second.rows[0], 3)
        if p1 != p0:
            return first, second, p0, p1
    raise AssertionError("no row of another partition")


async def _two_txns_second_held(producer, sink, table) -> tuple[Acks, list[int], list[int]]:
    """Write two one-row txns of ``table`` to different partitions, the second partition's
    sends held until the first's went through; then release it and settle. Returns the acks,
    the txns acknowledged while it was held, and what the first partition got meanwhile."""
    first, second, p0, p1 = _two_partition_txns(table)
    producer.gate(TOPIC, p1)
    acks = Acks()
    sink.write_events([acks.event(first), acks.event(second)])
    for _ in range(100):
        await asyncio.sleep(0)
    held = list(acks.fired)
    sent = [decoded(m)[1] for m in producer.messages(TOPIC, p0)]
    producer.release(TOPIC, p1)
    await settle(sink)
    return acks, held, sent


async def test_a_run_is_acknowledged_as_a_whole(fake_producer, make_mq_table):
    producer = fake_producer(partitions=3)
    sink = MQDMLSink(producer, DebugEncoder(), BY_ID, None, scheme="fake")
    acks, held, sent = await _two_txns_second_held(producer, sink, make_mq_table())
    assert sent == [100]
    assert held == [], "the first txn waits for its run's other partition"
    assert acks.fired == [100, 101]
    await sink.close()


async def test_marked_producer_keeps_one_delivery_per_txn(fake_producer, make_mq_table):
    """A producer told what each txn's records are (the fault injector) gets a mark per txn,
    so nothing is merged, and a txn is acknowledged as soon as its own rows are."""
    producer = fake_producer(partitions=3)
    marks: list[Mark] = []

    async def send_marked(
        topic: str, partition: int, records: Sequence[Record], batch: Sequence[Mark]
    ) -> None:
        marks.extend(batch)
        await producer.send(topic, partition, records)

    producer.send_marked = send_marked
    sink = MQDMLSink(producer, DebugEncoder(), BY_ID, None, scheme="fake")
    acks, held, sent = await _two_txns_second_held(producer, sink, make_mq_table())
    assert sent == held == [100]
    assert acks.fired == [100, 101]
    assert sorted(mark.commit_ts for mark in marks) == [100, 101]
    await sink.close()


async def test_bootstraps_land_between_the_runs(fake_producer, scripted_cadence, make_mq_table):
    """With a cadence, a BOOTSTRAP ahead of a txn goes after every earlier txn's records and
    before its own, on every partition, as when each txn is queued alone."""
    producer = fake_producer(partitions=3)
    sink = MQDMLSink(producer, DebugEncoder(), BY_ID, scripted_cadence(), scheme="fake")
    first, second = make_mq_table("a", 1), make_mq_table("b", 2)
    txns = [make_txn(first, 10, [0, 1, 2]), make_txn(first, 11, [3, 4])]
    txns += [make_txn(second, 12, [5, 6, 7]), make_txn(second, 13, [8])]
    acks = Acks()
    sink.write_events([acks.event(txn) for txn in txns])
    await settle(sink)
    for p in range(3):
        got = [
            ("BOOTSTRAP",) if m.type is MessageType.BOOTSTRAP else decoded(m)[1:]
            for m in producer.messages(TOPIC, p)
        ]
        expected: list[tuple[object, ...]] = []
        for txn in txns:
            if txn.commit_ts in (10, 12):
                expected.append(("BOOTSTRAP",))
            expected += [
                (txn.commit_ts, r.after["id"])
                for r in txn.rows
                if BY_ID.partition_for_row(r, 3) == p
            ]
        assert got == expected
    assert sorted(acks.fired) == [10, 11, 12, 13]
    await sink.close()


@settings(max_examples=60, deadline=None)
@given(
    txns=st.lists(
        st.tuples(st.integers(0, 1), st.integers(1, 5)), min_size=1, max_size=30
    ),  # (table, rows)
    delays=st.lists(st.integers(0, 3), min_size=3, max_size=3),
    limit=st.integers(1, 2000),
)
def test_property_runs_keep_order_bound_and_callbacks(txns, delays, limit, make_mq_table):
    """Whatever the tables, sizes, send delays and bound: every partition gets its rows in
    txn order, each callback fires once and only after all of its rows were acknowledged,
    and the bytes in flight never pass the bound by more than one transaction."""

    async def run() -> None:
        acked: set[tuple[int, int]] = set()
        largest = 0
        seen_inflight: list[int] = []
        tables = [make_mq_table("a", 1), make_mq_table("b", 2)]

        class Delayed:
            async def partition_count(self, topic: str) -> int:
                return 3

            async def send(self, topic, partition, records):
                seen_inflight.append(sink.inflight_bytes)
                for _ in range(delays[partition]):
                    await asyncio.sleep(0)
                for record in records:
                    _, commit_ts, row_id = decoded(Message(record[1]))
                    acked.add((commit_ts, row_id))
                sent.setdefault(partition, []).extend(records)

            async def close(self) -> None:
                return None

        sent: dict[int, list[Record]] = {}
        sink = MQDMLSink(
            Delayed(), DebugEncoder(), BY_ID, None, scheme="fake", max_inflight_bytes=limit
        )
        made, next_id = [], 0
        for n, (table, size) in enumerate(txns):
            made.append(make_txn(tables[table], 10 + n, list(range(next_id, next_id + size))))
            next_id += size
        fired: list[int] = []

        def callback_for(txn: SingleTableTxn):
            def fire() -> None:
                assert all((txn.commit_ts, r.after["id"]) in acked for r in txn.rows)
                fired.append(txn.commit_ts)

            return fire

        encoder = DebugEncoder()
        for txn in made:
            largest = max(largest, encoder.encode_rows(txn.rows).size)
        sink.write_events([CallbackableEvent(x, callback_for(x), StateRef()) for x in made])
        await sink.close()
        assert sorted(fired) == [x.commit_ts for x in made]
        assert max(seen_inflight) < limit + largest
        for partition, records in sent.items():
            order = [decoded(Message(r[1]))[1:] for r in records]
            expected = [
                (x.commit_ts, row.after["id"])
                for x in made
                for row in x.rows
                if BY_ID.partition_for_row(row, 3) == partition
            ]
            assert order == expected

    asyncio.run(run())
