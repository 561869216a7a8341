"""BatchingSink: batching, order, callbacks after success, retries, fatal errors, back-pressure,
close, and the DDL side; plus a real player driving one."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from tisink.eventsink.base import CallbackableEvent, StateRef, TableSinkState
from tisink.eventsink.batching import Batch, BatchingSink, RetryPolicy
from tisink.eventsink.errors import EventSinkError, RetriableError, SinkDeadError
from tisink.feed import play_inline
from tisink.feed.format.records import FeedRow
from tisink.feed.workload import generate_records
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent, SingleTableTxn
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table
from tisink.tablesink import TableSink

FAST = RetryPolicy(initial_backoff_s=0.001, max_backoff_s=0.002, jitter=0.0)


def table(name: str, table_id: int, version: int = 1) -> TableInfo:
    return make_table(
        "s", name, table_id, version, [ColumnInfo("id", "int", nullable=False)],
        [IndexInfo("primary", ("id",), unique=True, primary=True)],
    )  # fmt: skip


ORDERS = table("orders", 1)
USERS = table("users", 2)


class Recorder(BatchingSink):
    """Keeps every batch it was given; ``fail`` lists errors to raise on the next calls."""

    scheme = "recorder"

    def __init__(self, **kwargs) -> None:
        super().__init__(retry=kwargs.pop("retry", FAST), **kwargs)
        self.batches: list[Batch] = []
        self.fail: list[Exception] = []
        self.gate: asyncio.Event | None = None
        self.ddls: list[DDLEvent] = []
        self.checkpoints: list[int] = []
        self.close_calls = 0

    async def write_batch(self, batch: Batch) -> None:
        if self.gate is not None:
            await self.gate.wait()
        if self.fail:
            raise self.fail.pop(0)
        self.batches.append(batch)

    async def write_ddl(self, ddl: DDLEvent) -> None:
        if self.fail:
            raise self.fail.pop(0)
        self.ddls.append(ddl)

    async def write_checkpoint(self, ts: int) -> None:
        self.checkpoints.append(ts)

    async def on_close(self) -> None:
        self.close_calls += 1

    def written(self, info: TableInfo) -> list[int]:
        return [r.after["id"] for b in self.batches if b.table.table_id == info.table_id
                for r in b.rows]  # fmt: skip


def txns(info: TableInfo, sizes: list[int], fired: list[tuple[int, int]], start: int = 0):
    """One callbackable txn per size, ids counting up from ``start``; commit ts = 100 + index."""
    out, next_id = [], start
    for i, size in enumerate(sizes):
        rows = []
        for _ in range(size):
            rows.append(RowChangedEvent(99 + i, 100 + i, info, after={"id": next_id},
                                        approximate_size=10))  # fmt: skip
            next_id += 1
        txn = SingleTableTxn(99 + i, 100 + i, info, rows)
        key = (info.table_id, i)
        out.append(CallbackableEvent(txn, lambda key=key: fired.append(key), StateRef()))
    return out


async def test_batches_are_whole_txns_of_one_table_within_bounds():
    sink = Recorder(max_batch_rows=5, max_batch_bytes=1000)
    fired: list[tuple[int, int]] = []
    sink.write_events(txns(ORDERS, [2, 2, 2, 7, 1], fired) + txns(USERS, [3, 3], fired))
    await sink.close()
    shapes = [(b.table.table, [len(t.rows) for t in b.txns]) for b in sink.batches]
    assert shapes == [
        ("orders", [2, 2]), ("users", [3]), ("orders", [2]), ("users", [3]),
        ("orders", [7]), ("orders", [1]),
    ]  # fmt: skip
    assert sink.written(ORDERS) == list(range(14)) and sink.written(USERS) == list(range(6))
    assert sorted(fired) == [(1, i) for i in range(5)] + [(2, 0), (2, 1)]
    stats = sink.stats()
    assert (stats.rows, stats.txns, stats.batches, stats.skipped_txns) == (20, 7, 6, 0)
    assert (stats.ddls, stats.checkpoints, stats.messages) == (0, 0, {})
    assert sink.close_calls == 1


async def test_byte_bound_and_schema_version_cut_batches():
    sink = Recorder(max_batch_bytes=45)
    fired: list[tuple[int, int]] = []
    altered = replace(ORDERS, version=2)
    sink.write_events(txns(ORDERS, [2, 2, 1], fired) + txns(altered, [1, 1], fired, start=5))
    await sink.close()
    assert [(b.table.version, b.row_count, b.size) for b in sink.batches] == [
        (1, 4, 40), (1, 1, 10), (2, 2, 20),
    ]  # fmt: skip
    assert sink.batches[0].describe() == (
        "4 rows in 2 txns of s.orders (table id 1, commitTs 100..101)"
    )


async def test_write_events_does_not_block_and_callbacks_wait_for_the_write():
    sink = Recorder()
    sink.gate = asyncio.Event()
    fired: list[tuple[int, int]] = []
    sink.write_events(txns(ORDERS, [1, 1], fired))
    await asyncio.sleep(0.01)
    assert fired == [] and sink.batches == []
    sink.gate.set()
    await sink.flush()
    assert fired == [(1, 0), (1, 1)]
    await sink.close()


async def test_stopping_and_empty_txns_are_acknowledged_without_a_write():
    sink = Recorder()
    fired: list[tuple[int, int]] = []
    events = txns(ORDERS, [1, 1, 1], fired)
    events[0] = replace(events[0], sink_state=StateRef(TableSinkState.STOPPING))
    events[2].event.rows.clear()
    sink.write_events(events)
    await sink.close()
    assert sorted(fired) == [(1, 0), (1, 1), (1, 2)]
    assert sink.written(ORDERS) == [1]
    assert sink.stats().skipped_txns == 2


async def test_two_retriable_failures_then_success_lose_nothing():
    sink = Recorder(max_batch_rows=2)
    sink.fail = [RetriableError("busy"), RetriableError("busy again")]
    fired: list[tuple[int, int]] = []
    sink.write_events(txns(ORDERS, [1, 1, 1, 1], fired))
    await sink.close()
    assert sink.error is None
    assert sink.written(ORDERS) == [0, 1, 2, 3]  # each row once, in order
    assert fired == [(1, i) for i in range(4)]
    assert sink.stats().retries == 2
    assert sink.batches[0].attempt == 3 and sink.batches[1].attempt == 1


async def test_the_sink_decides_what_is_retriable():
    class Flaky(Recorder):
        retriable_errors = (ConnectionError,)

    sink = Flaky()
    sink.fail = [ConnectionResetError("reset")]
    fired: list[tuple[int, int]] = []
    sink.write_events(txns(ORDERS, [2], fired))
    await sink.close()
    assert sink.written(ORDERS) == [0, 1] and fired == [(1, 0)]


async def test_a_fatal_error_names_the_table_and_drops_the_rest():
    sink = Recorder(max_batch_rows=1)
    sink.fail = [ValueError("constraint failed")]
    fired: list[tuple[int, int]] = []
    sink.write_events(txns(ORDERS, [1, 1], fired) + txns(USERS, [1], fired))
    with pytest.raises(SinkDeadError, match="constraint failed"):
        await sink.flush()
    message = str(sink.error)
    assert "s.orders" in message and "commitTs 100..100" in message
    assert isinstance(sink.error.__cause__, ValueError)
    assert fired == [] and sink.batches == []
    with pytest.raises(SinkDeadError):
        sink.write_events(txns(ORDERS, [1], fired))
    with pytest.raises(SinkDeadError):
        await sink.wait_for_capacity()
    await sink.close()
    assert sink.close_calls == 1


async def test_retries_run_out():
    sink = Recorder(retry=replace(FAST, max_attempts=3))
    sink.fail = [RetriableError("busy")] * 5
    sink.write_events(txns(USERS, [1], []))
    with pytest.raises(SinkDeadError, match="after 3 attempts"):
        await sink.flush()
    assert "s.users" in str(sink.error)
    await sink.close()


async def test_wait_for_capacity_holds_while_the_queue_is_full():
    sink = Recorder(max_pending_rows=3)
    sink.gate = asyncio.Event()
    sink.write_events(txns(ORDERS, [2, 2], []))
    waiter = asyncio.ensure_future(sink.wait_for_capacity())
    await asyncio.sleep(0.01)
    assert not waiter.done()
    sink.gate.set()
    await asyncio.wait_for(waiter, 1)
    await sink.close()


async def test_tables_are_written_concurrently_but_each_in_order():
    in_flight: set[int] = set()
    overlap: list[set[int]] = []

    class Slow(Recorder):
        async def write_batch(self, batch: Batch) -> None:
            assert batch.table.table_id not in in_flight
            in_flight.add(batch.table.table_id)
            overlap.append(set(in_flight))
            await asyncio.sleep(0.002)
            in_flight.discard(batch.table.table_id)
            await super().write_batch(batch)

    sink = Slow(max_batch_rows=1, concurrency=2)
    sink.write_events(txns(ORDERS, [1] * 5, []) + txns(USERS, [1] * 5, []))
    await sink.close()
    assert sink.written(ORDERS) == list(range(5)) == sink.written(USERS)
    assert {1, 2} in overlap


async def test_close_drains_once_and_refuses_later_writes():
    sink = Recorder()
    sink.gate = asyncio.Event()
    fired: list[tuple[int, int]] = []
    sink.write_events(txns(ORDERS, [1], fired))
    closing = asyncio.ensure_future(sink.close())
    await asyncio.sleep(0.01)
    assert not closing.done()
    sink.gate.set()
    await closing
    await sink.close()
    assert fired == [(1, 0)] and sink.close_calls == 1
    with pytest.raises(EventSinkError, match="closed"):
        sink.write_events(txns(ORDERS, [1], fired))


async def test_ddl_and_checkpoint_hooks():
    sink = Recorder()
    ddl = DDLEvent(5, DDLType.CREATE, "CREATE TABLE s.orders (id int)", ORDERS)
    sink.fail = [RetriableError("locked")]
    await sink.write_ddl_event(ddl)
    assert sink.ddls == [ddl] and sink.stats().retries == 1
    for ts in (7, 7, 6, 9):
        await sink.write_checkpoint_ts(ts, [ORDERS])
    assert sink.checkpoints == [7, 9]
    sink.fail = [KeyError("no such table")]
    with pytest.raises(EventSinkError, match=r"applying DDL CREATE s\.orders"):
        await sink.write_ddl_event(ddl)
    assert sink.error is not None
    with pytest.raises(SinkDeadError):
        await sink.write_checkpoint_ts(10, [ORDERS])
    await sink.close()


def test_limits_must_be_positive():
    with pytest.raises(EventSinkError, match="max_batch_rows"):
        Recorder(max_batch_rows=0)
    with pytest.raises(EventSinkError, match="max_attempts"):
        RetryPolicy(max_attempts=0)


async def test_a_player_drives_it_as_event_and_ddl_sink():
    """The demo workload through the real player and table sinks: every row arrives once, in
    commit order per table, and the checkpoint reaches the end of the feed."""
    records = list(generate_records("demo", 3, 3000))
    sink = Recorder(max_batch_rows=64)
    try:
        stats = await play_inline(records, sink, sink, lambda tid: TableSink(tid, sink))
    finally:
        await sink.close()
    expected: dict[int, list[tuple[int, int]]] = {}
    for record in records:
        if type(record) is FeedRow:
            row = record.row
            expected.setdefault(row.table.table_id, []).append((row.commit_ts, row.start_ts))
    got: dict[int, list[tuple[int, int]]] = {}
    for batch in sink.batches:
        got.setdefault(batch.table.table_id, []).extend(
            (row.commit_ts, row.start_ts) for row in batch.rows
        )
    # the workload never changes a key, so no UPDATE is split: the same rows, in feed order
    assert got == expected
    assert len(sink.ddls) == stats.ddl > 0
    assert (
        sink.checkpoints[-1]
        == stats.checkpoint_ts
        == max(r.row.commit_ts for r in records if type(r) is FeedRow)
    )
