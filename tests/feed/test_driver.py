"""The table-sink driver: commit order across tables, planned BOOTSTRAPs between transactions,
and draining that waits for acknowledgements instead of polling."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from tisink.codec.bootstrap import BootstrapSend
from tisink.eventsink.base import CallbackableEvent
from tisink.eventsink.capabilities import NotifiesAcks, WritesBootstraps
from tisink.feed.driver import TableSinkDriver
from tisink.model.events import RowChangedEvent
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table
from tisink.tablesink import TableSink


def _table(table_id: int) -> TableInfo:
    return make_table(
        "s",
        f"t{table_id}",
        table_id,
        1,
        [ColumnInfo("id", "int", nullable=False)],
        [IndexInfo("primary", ("id",), unique=True, primary=True)],
    )


def _row(table: TableInfo, ts: int, key: int) -> RowChangedEvent:
    return RowChangedEvent(ts - 1, ts, table, None, {"id": key})


class _Recorder:
    """Writes down txns and BOOTSTRAPs in the order it gets them; acks after ``delay_s``,
    telling its listeners."""

    scheme = "recorder"
    wants_txn = True

    def __init__(self, delay_s: float = 0.0) -> None:
        self.order: list[tuple[str, int, int]] = []
        self._delay_s = delay_s
        self._listeners: list[Callable[[], None]] = []
        self.checked = 0

    def write_events(self, events: Sequence[CallbackableEvent[Any]]) -> None:
        loop = asyncio.get_running_loop()
        for event in events:
            txn = event.event
            self.order.append(("txn", txn.commit_ts, txn.table.table_id))
            loop.call_later(self._delay_s, self._ack, event.callback)

    def _ack(self, callback: Callable[[], None]) -> None:
        callback()
        for listener in self._listeners:
            listener()

    def add_ack_listener(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def write_bootstrap(self, send: BootstrapSend) -> None:
        self.order.append(("bootstrap", 0, send.table.table_id))

    @property
    def error(self) -> BaseException | None:
        self.checked += 1  # the driver looks at the sink's health on each wake-up
        return None

    @property
    def inflight_bytes(self) -> int:
        return 0

    async def close(self) -> None:
        return None


async def test_transactions_leave_in_commit_order_then_table_id_with_bootstraps_between() -> None:
    a, b, c = _table(3), _table(1), _table(2)
    sink = _Recorder()
    assert isinstance(sink, NotifiesAcks) and isinstance(sink, WritesBootstraps)
    driver = TableSinkDriver(sink, lambda tid: TableSink(tid, sink))
    # one transaction at 10 spanning a, b (rows interleaved), then c at 20 with b again
    driver.add_row(_row(a, 10, 1))
    driver.add_row(_row(b, 10, 1))
    driver.add_bootstrap(10, c.table_id, BootstrapSend(c, "t", (0,)))  # before c at 10: none
    driver.add_row(_row(a, 10, 2))
    driver.add_bootstrap(20, c.table_id, BootstrapSend(c, "t", (0,)))
    driver.add_row(_row(c, 20, 1))
    driver.add_row(_row(b, 20, 2))
    await driver.drain(20)
    assert sink.order == [
        ("txn", 10, 1),
        ("bootstrap", 0, 2),
        ("txn", 10, 3),
        ("txn", 20, 1),
        ("bootstrap", 0, 2),
        ("txn", 20, 2),
    ]
    await driver.close()


async def test_a_drain_waits_for_acks_without_polling() -> None:
    table = _table(1)
    sink = _Recorder(delay_s=0.2)
    driver = TableSinkDriver(sink, lambda tid: TableSink(tid, sink))
    for key in range(5):
        driver.add_row(_row(table, 10 + key, key))
    await driver.drain(20)
    assert driver.checkpoint() == 20
    # a wake-up per ack (five); polling every 2 ms would look about 100 times in 0.2 s
    assert sink.checked <= 15
    await driver.close()
