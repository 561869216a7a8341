"""TableSink: flushing on resolved ts, splitting, checkpoints, dead sinks and closing (spec 7.1)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from tisink.eventsink.base import TableSinkState
from tisink.eventsink.blackhole import BlackholeSink
from tisink.eventsink.errors import SinkDeadError
from tisink.model.events import ResolvedTs, RowChangedEvent, RowOp, SingleTableTxn
from tisink.tablesink import EventOrderError, TableSink, TableSinkClosedError, TableSinkError
from tisink.tablesink.split import SplitPolicy

Row = Callable[..., RowChangedEvent]
Image = Callable[..., dict[str, Any]]
Held = Callable[..., Any]


def rts(ts: int) -> ResolvedTs:
    return ResolvedTs.normal(ts)


def test_row_sink_gets_rows_and_txn_sink_gets_txns(row: Row, held_sink: Held) -> None:
    rows = [row(10, 9), row(10, 9), row(12, 11)]
    row_sink, txn_sink = held_sink(wants_txn=False), held_sink(wants_txn=True)
    for sink in (row_sink, txn_sink):
        table_sink = TableSink(148, sink)
        table_sink.append_row_changed_events(rows)
        table_sink.update_resolved_ts(rts(12))
    assert [e.event for e in row_sink.events] == rows
    assert all(isinstance(e.event, SingleTableTxn) for e in txn_sink.events)
    assert [e.event.rows for e in txn_sink.events] == [rows[:2], rows[2:]]


def test_only_the_resolved_prefix_leaves_the_buffer(row: Row, held_sink: Held) -> None:
    sink = held_sink()
    table_sink = TableSink(148, sink)
    rows = [row(10), row(12, 10), row(12), row(14)]
    table_sink.append_row_changed_events(rows)
    table_sink.update_resolved_ts(rts(12))
    assert [e.event for e in sink.events] == rows[:3]
    table_sink.update_resolved_ts(rts(13))
    assert sink.write_calls == [3, 0]
    table_sink.update_resolved_ts(rts(20))
    assert [e.event for e in sink.events] == rows
    assert sink.write_calls == [3, 0, 1]


def test_resolved_ts_only_moves_forward(row: Row, held_sink: Held) -> None:
    sink = held_sink()
    table_sink = TableSink(148, sink)
    table_sink.update_resolved_ts(rts(12))
    table_sink.update_resolved_ts(rts(12))
    table_sink.update_resolved_ts(rts(11))
    table_sink.update_resolved_ts(ResolvedTs.batch(12, 4))  # sorts before normal 12
    assert sink.write_calls == [0]
    table_sink.append_row_changed_events([row(15)])
    table_sink.update_resolved_ts(rts(15))
    assert sink.write_calls == [0, 1]


def test_empty_prefix_advances_and_checks_the_sink(row: Row, held_sink: Held) -> None:
    sink = held_sink()
    table_sink = TableSink(148, sink, start_ts=5)
    assert table_sink.get_checkpoint_ts() == rts(5)
    table_sink.append_row_changed_events([row(30)])
    table_sink.update_resolved_ts(rts(20))
    assert sink.write_calls == [0]  # write_events([]) as the health check
    assert table_sink.get_checkpoint_ts() == rts(20)


def test_checkpoint_waits_for_acks(row: Row, held_sink: Held) -> None:
    sink = held_sink()
    table_sink = TableSink(148, sink)
    table_sink.append_row_changed_events([row(10), row(11)])
    table_sink.update_resolved_ts(rts(10))
    table_sink.update_resolved_ts(rts(11))
    table_sink.update_resolved_ts(rts(15))
    assert table_sink.get_checkpoint_ts() == rts(0)
    sink.ack(1)
    assert table_sink.get_checkpoint_ts() == rts(0)
    sink.ack(0)
    assert table_sink.get_checkpoint_ts() == rts(15)


def test_start_ts_is_the_first_checkpoint_and_table_info_floor(row: Row, held_sink: Held) -> None:
    sink = held_sink(wants_txn=True)
    table_sink = TableSink(148, sink, start_ts=1000)
    table_sink.update_resolved_ts(rts(999))
    assert sink.write_calls == []
    table_sink.append_row_changed_events([row(1001)])
    table_sink.update_resolved_ts(rts(1001))
    assert sink.events[0].event.table_info_version == 1000


def test_batch_resolved_ts_reports_ts_minus_one(row: Row, held_sink: Held) -> None:
    sink = held_sink(wants_txn=True)
    table_sink = TableSink(148, sink)
    table_sink.append_row_changed_events([row(20, 19), row(20, 19)])
    table_sink.update_resolved_ts(ResolvedTs.batch(20, 1))
    sink.ack_all()
    checkpoint = table_sink.get_checkpoint_ts()
    assert (checkpoint.ts, checkpoint.resolved_mark) == (20, 19)
    table_sink.append_row_changed_events([row(20, 19, split_txn=True)])
    table_sink.update_resolved_ts(rts(20))
    sink.ack_all()
    assert table_sink.get_checkpoint_ts().resolved_mark == 20
    assert [len(e.event.rows) for e in sink.events] == [2, 1]


@pytest.mark.parametrize("wants_txn", [False, True])
def test_key_changing_update_is_split_deletes_first(
    row: Row, image: Image, held_sink: Held, wants_txn: bool
) -> None:
    """Classic (tiflow ``trySplitAndSortUpdateEvent``): the transaction is re-sorted."""
    sink = held_sink(wants_txn=wants_txn)
    table_sink = TableSink(148, sink, split=SplitPolicy(newarch=False))
    table_sink.append_row_changed_events(
        [
            row(10, 9, after=image(1)),
            row(10, 9, before=image(2), after=image(3)),  # changes the PK
            row(10, 9, before=image(4), after=image(4, name="x")),  # changes no key
        ]
    )
    table_sink.update_resolved_ts(rts(10))
    rows = sink.events[0].event.rows if wants_txn else [e.event for e in sink.events]
    assert [(r.op, (r.before or r.after)["id"]) for r in rows] == [
        (RowOp.DELETE, 2),
        (RowOp.UPDATE, 4),
        (RowOp.INSERT, 1),
        (RowOp.INSERT, 3),
    ]


@pytest.mark.parametrize("wants_txn", [False, True])
def test_key_changing_update_is_split_inserts_last_in_the_new_architecture(
    row: Row, image: Image, held_sink: Held, wants_txn: bool
) -> None:
    """New (ticdc ``dmlProcessor.appendRow``): the DELETE stays in the UPDATE's place, the
    INSERTs go to the end of the transaction in order, nothing else moves."""
    sink = held_sink(wants_txn=wants_txn)
    table_sink = TableSink(148, sink)
    table_sink.append_row_changed_events(
        [
            row(10, 9, after=image(1)),
            row(10, 9, before=image(2), after=image(3)),  # changes the PK
            row(10, 9, before=image(4), after=image(4, name="x")),  # changes no key
            row(10, 9, before=image(5), after=image(6)),  # changes the PK
        ]
    )
    table_sink.update_resolved_ts(rts(10))
    rows = sink.events[0].event.rows if wants_txn else [e.event for e in sink.events]
    assert [(r.op, (r.before or r.after)["id"]) for r in rows] == [
        (RowOp.INSERT, 1),
        (RowOp.DELETE, 2),
        (RowOp.UPDATE, 4),
        (RowOp.DELETE, 5),
        (RowOp.INSERT, 3),
        (RowOp.INSERT, 6),
    ]


@pytest.mark.parametrize(("split", "raw"), [(SplitPolicy(), True), (SplitPolicy(False), False)])
def test_raw_mode_and_mysql_sinks_keep_updates_whole(
    row: Row, image: Image, held_sink: Held, split: SplitPolicy, raw: bool
) -> None:
    """Raw change events, or a policy of a sink that applies UPDATEs whole (MySQL-compatible,
    as its provider declares)."""
    sink = held_sink(scheme="any")
    table_sink = TableSink(148, sink, output_raw_change_event=raw, split=split)
    update = row(10, before=image(2), after=image(3))
    table_sink.append_row_changed_events([update])
    table_sink.update_resolved_ts(rts(10))
    assert [e.event for e in sink.events] == [update]


def test_split_rows_are_acked_one_by_one(row: Row, image: Image, held_sink: Held) -> None:
    sink = held_sink()
    table_sink = TableSink(148, sink)
    table_sink.append_row_changed_events([row(10, before=image(2), after=image(3))])
    table_sink.update_resolved_ts(rts(10))
    assert len(sink.events) == 2
    sink.ack(0)
    assert table_sink.get_checkpoint_ts() == rts(0)
    sink.ack(1)
    assert table_sink.get_checkpoint_ts() == rts(10)


def test_order_errors_surface_from_append(row: Row, held_sink: Held) -> None:
    table_sink = TableSink(148, held_sink())
    table_sink.append_row_changed_events([row(20)])
    with pytest.raises(EventOrderError):
        table_sink.append_row_changed_events([row(19)])


def test_dead_sink_error_is_raised_as_is(row: Row, held_sink: Held) -> None:
    sink = held_sink()
    table_sink = TableSink(148, sink)
    sink.dead = SinkDeadError("kafka sink is dead: topic t partition 3 failed")
    with pytest.raises(SinkDeadError) as info:
        table_sink.update_resolved_ts(rts(10))
    assert info.value is sink.dead


def test_foreign_sink_error_is_wrapped_naming_the_table(row: Row, held_sink: Held) -> None:
    sink = held_sink()
    table_sink = TableSink(148, sink)
    table_sink.append_row_changed_events([row(10)])
    sink.dead = ConnectionError("broker gone")
    with pytest.raises(TableSinkError, match=r"table sink 148 \(app\.user\)") as info:
        table_sink.update_resolved_ts(rts(10))
    assert info.value.__cause__ is sink.dead


def test_write_failure_is_wrapped_naming_the_table(row: Row) -> None:
    class Exploding(BlackholeSink):
        def write_events(self, events: Any) -> None:
            raise OSError("disk full")

    table_sink = TableSink(148, Exploding())
    table_sink.append_row_changed_events([row(10)])
    with pytest.raises(TableSinkError, match=r"table sink 148 .*blackhole.*disk full"):
        table_sink.update_resolved_ts(rts(10))


def test_events_share_the_table_state(row: Row, held_sink: Held) -> None:
    sink = held_sink()
    table_sink = TableSink(148, sink)
    table_sink.append_row_changed_events([row(10), row(11)])
    table_sink.update_resolved_ts(rts(11))
    assert {e.sink_state.state for e in sink.events} == {TableSinkState.NORMAL}
    assert table_sink.async_close() is False
    assert {e.sink_state.state for e in sink.events} == {TableSinkState.STOPPING}


async def test_close_waits_for_late_acks(row: Row, held_sink: Held) -> None:
    sink = held_sink()
    table_sink = TableSink(148, sink)
    table_sink.append_row_changed_events([row(10), row(11)])
    table_sink.update_resolved_ts(rts(11))
    closing = asyncio.create_task(table_sink.close())
    await asyncio.sleep(0.05)
    assert not closing.done()
    assert table_sink.state is TableSinkState.STOPPING
    sink.ack(1)
    await asyncio.sleep(0.05)
    assert not closing.done()
    sink.ack(0)
    await asyncio.wait_for(closing, 1)
    assert table_sink.state is TableSinkState.STOPPED
    assert table_sink.get_checkpoint_ts() == rts(0)  # frozen: late acks do not move it


async def test_close_returns_when_the_sink_is_dead(row: Row, held_sink: Held) -> None:
    sink = held_sink()
    table_sink = TableSink(148, sink)
    table_sink.append_row_changed_events([row(10)])
    table_sink.update_resolved_ts(rts(10))
    closing = asyncio.create_task(table_sink.close())
    await asyncio.sleep(0.03)
    assert not closing.done()
    sink.dead = SinkDeadError("gone")
    await asyncio.wait_for(closing, 1)
    assert table_sink.state is TableSinkState.STOPPED


async def test_close_is_cancellable(row: Row, held_sink: Held) -> None:
    sink = held_sink()
    table_sink = TableSink(148, sink)
    table_sink.append_row_changed_events([row(10)])
    table_sink.update_resolved_ts(rts(10))
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(table_sink.close(), 0.05)
    assert table_sink.state is TableSinkState.STOPPING
    sink.ack_all()
    await table_sink.close()
    assert table_sink.state is TableSinkState.STOPPED


async def test_close_of_an_idle_table_is_immediate(held_sink: Held) -> None:
    table_sink = TableSink(148, held_sink())
    await asyncio.wait_for(table_sink.close(), 0.005)
    assert table_sink.state is TableSinkState.STOPPED


def test_async_close_reports_when_drained(row: Row, held_sink: Held) -> None:
    sink = held_sink()
    table_sink = TableSink(148, sink)
    table_sink.append_row_changed_events([row(10)])
    table_sink.update_resolved_ts(rts(10))
    assert table_sink.async_close() is False
    assert table_sink.async_close() is False
    sink.ack_all()
    table_sink.get_checkpoint_ts()  # as in TiCDC, a checkpoint query while stopping also checks
    assert table_sink.state is TableSinkState.STOPPED
    assert table_sink.async_close() is True


def test_closed_table_rejects_rows_and_resolved_ts(row: Row, held_sink: Held) -> None:
    table_sink = TableSink(148, held_sink())
    assert table_sink.async_close() is True
    with pytest.raises(TableSinkClosedError, match="table sink 148"):
        table_sink.append_row_changed_events([row(10)])
    with pytest.raises(TableSinkClosedError):
        table_sink.update_resolved_ts(rts(10))


def test_blackhole_round_trip(row: Row) -> None:
    sink = BlackholeSink()
    table_sink = TableSink(148, sink)
    for ts in range(10, 20):
        table_sink.append_row_changed_events([row(ts)])
        table_sink.update_resolved_ts(rts(ts))
    assert sink.rows == 10
    assert table_sink.get_checkpoint_ts() == rts(19)
