"""LogSink, the worked example: a structured line per row, callbacks at once."""

from __future__ import annotations

import logging

import pytest

from tisink.codec.debug import DebugEncoder
from tisink.codec.errors import CodecError
from tisink.eventsink.base import CallbackableEvent, StateRef, TableSinkState
from tisink.eventsink.errors import SinkDeadError
from tisink.eventsink.log import LogSink
from tisink.model.events import RowChangedEvent
from tisink.model.table import ColumnInfo, make_table

TABLE = make_table("shop", "orders", 1, 1, [ColumnInfo("id", "int")])


def events(fired: list[int], n: int, state: StateRef | None = None):
    return [
        CallbackableEvent(
            RowChangedEvent(10 + i, 11 + i, TABLE, after={"id": i}),
            lambda i=i: fired.append(i),
            state or StateRef(),
        )
        for i in range(n)
    ]


def test_one_line_per_row_with_fields(caplog):
    caplog.set_level(logging.INFO, logger="tisink.eventsink.log")
    sink = LogSink(DebugEncoder())
    fired: list[int] = []
    sink.write_events(events(fired, 3))
    assert fired == [0, 1, 2]
    rows = [r for r in caplog.records if r.name == "tisink.eventsink.log"]
    assert [(r.table, r.op, r.start_ts, r.commit_ts) for r in rows] == [
        ("shop.orders", "INSERT", 10 + i, 11 + i) for i in range(3)
    ]
    size = DebugEncoder().encode_row(RowChangedEvent(10, 11, TABLE, after={"id": 0})).length()
    assert rows[0].bytes == size
    assert sink.rows == 3 and sink.bytes == sum(r.bytes for r in rows)


def test_stopping_table_rows_are_acknowledged_not_logged(caplog):
    caplog.set_level(logging.INFO, logger="tisink.eventsink.log")
    sink = LogSink()
    fired: list[int] = []
    sink.write_events(events(fired, 2, StateRef(TableSinkState.STOPPING)))
    assert fired == [0, 1]
    assert sink.rows == 0 and sink.skipped == 2
    assert not [r for r in caplog.records if r.name == "tisink.eventsink.log"]


def test_encode_error_kills_the_sink():
    class Broken(DebugEncoder):
        def encode_row(self, row):
            raise CodecError("column id: bad value")

    sink = LogSink(Broken())
    fired: list[int] = []
    with pytest.raises(Exception, match="column id"):
        sink.write_events(events(fired, 1))
    assert fired == []
    assert sink.error is not None
    with pytest.raises(SinkDeadError):
        sink.write_events(events(fired, 1))
