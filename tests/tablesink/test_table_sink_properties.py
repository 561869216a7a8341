"""Properties of TableSink under random row streams, resolved ts and ack orders."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import event, given, settings
from hypothesis import strategies as st

from tisink.model.events import ResolvedTs, RowChangedEvent
from tisink.model.table import TableInfo
from tisink.tablesink import TableSink

START = 100


def _rows_of(event: Any) -> list[RowChangedEvent]:
    return event.rows if hasattr(event, "rows") else [event]


@settings(deadline=None)
@given(st.booleans(), st.data())
def test_checkpoint_is_monotonic_safe_and_complete(
    held_sink: Callable[..., Any], user_table: TableInfo, wants_txn: bool, data: st.DataObject
) -> None:
    sink = held_sink(wants_txn=wants_txn)
    table_sink = TableSink(148, sink, start_ts=START)
    appended: list[RowChangedEvent] = []
    resolved_calls: list[tuple[int, int]] = []  # (resolved ts, events written so far)
    last_commit, start, floor = START, 0, START
    checkpoint = START

    def check() -> int:
        now = table_sink.get_checkpoint_ts().resolved_mark
        assert now >= checkpoint, "checkpoint went backwards"
        for index in sink.unacked():
            assert now < sink.events[index].event.commit_ts, "checkpoint passed an unacked event"
        expected = START
        for ts, written in resolved_calls:
            if all(sink.acked[:written]):
                expected = ts
        assert now == expected
        return now

    for _ in range(data.draw(st.integers(1, 30), label="steps")):
        step = data.draw(st.sampled_from(["txn", "resolve", "ack"]))
        if step == "txn":
            last_commit = max(last_commit, floor + 1) + data.draw(st.integers(0, 2))
            start += 1
            rows = [
                RowChangedEvent(
                    start,
                    last_commit,
                    user_table,
                    after={"id": len(appended) + i},
                    split_txn=i > 0 and data.draw(st.booleans()),
                )
                for i in range(data.draw(st.integers(1, 3)))
            ]
            table_sink.append_row_changed_events(rows)
            appended.extend(rows)
        elif step == "resolve":
            ts = floor + data.draw(st.integers(0, 4))
            table_sink.update_resolved_ts(ResolvedTs.normal(ts))
            if ts > floor:
                floor = ts
                resolved_calls.append((ts, len(sink.events)))
        elif sink.unacked():
            sink.ack(data.draw(st.sampled_from(sink.unacked())))
        checkpoint = check()

    for index in data.draw(st.permutations(sink.unacked()), label="final ack order"):
        sink.ack(index)
        checkpoint = check()
    assert checkpoint == floor
    event("events written: " + (str(len(sink.events)) if len(sink.events) < 10 else "10+"))
    delivered = [r for e in sink.events for r in _rows_of(e.event)]
    assert delivered == [r for r in appended if r.commit_ts <= floor]
