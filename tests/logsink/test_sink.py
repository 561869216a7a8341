"""LogSink, the smallest worked example: a structured line per row, written by BatchingSink."""

from __future__ import annotations

import logging

import pytest

from tisink.codec.debug import DebugEncoder
from tisink.codec.errors import CodecError
from tisink.eventsink.base import CallbackableEvent, StateRef, TableSinkState
from tisink.eventsink.errors import SinkDeadError
from tisink.logsink import LogSink
from tisink.model.events import RowChangedEvent, SingleTableTxn
from tisink.model.table import ColumnInfo, make_table

TABLE = make_table("shop", "orders", 1, 1, [ColumnInfo("id", "int")])


def events(fired: list[int], n: int, state: StateRef | None = None):
    """``n`` one-row transactions of TABLE; each callback records its index."""
    out = []
    for i in range(n):
        row = RowChangedEvent(10 + i, 11 + i, TABLE, after={"id": i})
        txn = SingleTableTxn(row.start_ts, row.commit_ts, TABLE, [row])
        out.append(CallbackableEvent(txn, lambda i=i: fired.append(i), state or StateRef()))
    return out


async def test_one_line_per_row_with_fields(caplog):
    caplog.set_level(logging.INFO, logger="tisink.eventsink.log")
    sink = LogSink(DebugEncoder())
    fired: list[int] = []
    sink.write_events(events(fired, 3))
    assert fired == []  # write_events only queues
    await sink.flush()
    assert fired == [0, 1, 2]
    rows = [r for r in caplog.records if r.name == "tisink.eventsink.log"]
    assert [(r.table, r.op, r.start_ts, r.commit_ts) for r in rows] == [
        ("shop.orders", "INSERT", 10 + i, 11 + i) for i in range(3)
    ]
    size = DebugEncoder().encode_row(RowChangedEvent(10, 11, TABLE, after={"id": 0})).length()
    assert rows[0].bytes == size
    assert sink.rows == 3 and sink.bytes == sum(r.bytes for r in rows)
    await sink.close()


async def test_stopping_table_rows_are_acknowledged_not_logged(caplog):
    caplog.set_level(logging.INFO, logger="tisink.eventsink.log")
    sink = LogSink()
    fired: list[int] = []
    sink.write_events(events(fired, 2, StateRef(TableSinkState.STOPPING)))
    await sink.close()
    assert fired == [0, 1]
    assert sink.rows == 0 and sink.stats().skipped_txns == 2
    assert not [r for r in caplog.records if r.name == "tisink.eventsink.log"]


async def test_encode_error_kills_the_sink_naming_the_table():
    class Broken(DebugEncoder):
        def encode_row(self, row):
            raise CodecError("column id: bad value")

    sink = LogSink(Broken())
    fired: list[int] = []
    sink.write_events(events(fired, 1))
    with pytest.raises(SinkDeadError, match="column id"):
        await sink.flush()
    assert fired == []
    assert "shop.orders" in str(sink.error) and "column id" in str(sink.error)
    with pytest.raises(SinkDeadError):
        sink.write_events(events(fired, 1))
    await sink.close()
