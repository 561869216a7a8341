"""Row and txn appenders: grouping, order checks, table info version (spec 7.4)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.model.events import RowChangedEvent, SingleTableTxn
from tisink.model.table import TableInfo
from tisink.tablesink.appender import RowAppender, TxnAppender
from tisink.tablesink.errors import EventOrderError, TableSinkError

Row = Callable[..., RowChangedEvent]


def test_row_appender_keeps_rows_one_by_one(row: Row) -> None:
    buffer: list[RowChangedEvent] = []
    appender = RowAppender()
    rows = [row(10, 5), row(10, 5), row(12, 11)]
    appender.append(buffer, rows[:2])
    appender.append(buffer, rows[2:])
    assert buffer == rows
    assert appender.last is rows[2]


def test_txn_appender_groups_by_start_ts(row: Row) -> None:
    buffer: list[SingleTableTxn] = []
    appender = TxnAppender()
    a1, a2, b1 = row(10, 5), row(10, 5), row(10, 7)
    c1 = row(12, 11)
    appender.append(buffer, [a1])
    appender.append(buffer, [a2, b1, c1])  # a2 continues a txn begun by an earlier call
    assert [(t.start_ts, t.commit_ts, t.rows) for t in buffer] == [
        (5, 10, [a1, a2]),
        (7, 10, [b1]),
        (11, 12, [c1]),
    ]


def test_txn_appender_splits_on_split_txn(row: Row) -> None:
    buffer: list[SingleTableTxn] = []
    rows = [row(10, 5), row(10, 5), row(10, 5, split_txn=True), row(10, 5)]
    TxnAppender().append(buffer, rows)
    assert [t.rows for t in buffer] == [rows[:2], rows[2:]]


def test_txn_appender_starts_a_new_txn_after_a_flush(row: Row) -> None:
    appender = TxnAppender()
    first: list[SingleTableTxn] = []
    appender.append(first, [row(10, 5)])
    second: list[SingleTableTxn] = []  # the buffer the table sink kept after flushing
    appender.append(second, [row(10, 5)])
    assert len(first) == 1 and len(second) == 1


def test_txn_appender_splits_where_the_partition_changes(row: Row) -> None:
    """Each partition is a table sink of its own in TiCDC: one transaction over two
    partitions is two table transactions, in the order its rows came."""
    buffer: list[SingleTableTxn] = []
    rows = [row(10, 5, physical_table_id=p) for p in (901, 901, 902, 901)]
    TxnAppender().append(buffer, rows)
    assert [(t.physical_table_id, t.rows) for t in buffer] == [
        (901, rows[:2]),
        (902, rows[2:3]),
        (901, rows[3:]),
    ]


def test_txn_carries_table_and_physical_id(row: Row, user_table: TableInfo) -> None:
    buffer: list[SingleTableTxn] = []
    TxnAppender().append(buffer, [row(10, 5, physical_table_id=901)])
    assert buffer[0].table is user_table
    assert buffer[0].physical_table_id == 901


@pytest.mark.parametrize(("sink_start", "expected"), [(0, 400), (399, 400), (401, 401)])
def test_table_info_version_raised_to_sink_start(row: Row, sink_start: int, expected: int) -> None:
    buffer: list[SingleTableTxn] = []
    TxnAppender(sink_start).append(buffer, [row(1000, 900)])
    assert buffer[0].table_info_version == expected


@pytest.mark.parametrize("appender_type", [RowAppender, TxnAppender])
def test_commit_ts_backwards_names_both_rows(row: Row, appender_type: type) -> None:
    appender = appender_type()
    buffer: list = []
    earlier, later = row(20, 19), row(15, 14)
    appender.append(buffer, [earlier])
    with pytest.raises(EventOrderError) as info:
        appender.append(buffer, [later])
    message = str(info.value)
    assert "commitTs went backwards" in message
    assert earlier.describe() in message and later.describe() in message
    assert isinstance(info.value, TableSinkError)


@pytest.mark.parametrize("appender_type", [RowAppender, TxnAppender])
def test_start_ts_backwards_at_equal_commit_names_both_rows(row: Row, appender_type: type) -> None:
    first, second = row(20, 18), row(20, 17)
    with pytest.raises(EventOrderError) as info:
        appender_type().append([], [first, second])
    assert "startTs went backwards" in str(info.value)
    assert first.describe() in str(info.value) and second.describe() in str(info.value)


def test_one_txn_with_two_commit_ts_is_rejected(row: Row) -> None:
    first, second = row(20, 18), row(21, 18)
    with pytest.raises(EventOrderError, match="two commitTs") as info:
        TxnAppender().append([], [first, second])
    assert first.describe() in str(info.value) and second.describe() in str(info.value)


def test_rejected_batch_leaves_the_buffer_untouched(row: Row) -> None:
    appender = TxnAppender()
    buffer: list[SingleTableTxn] = []
    appender.append(buffer, [row(10, 5)])
    with pytest.raises(EventOrderError):
        appender.append(buffer, [row(12, 11), row(11, 10)])
    assert [t.commit_ts for t in buffer] == [10]
    assert len(buffer[0].rows) == 1
    appender.append(buffer, [row(12, 11)])  # the appender still accepts the good continuation
    assert [t.commit_ts for t in buffer] == [10, 12]


@st.composite
def row_streams(draw: st.DrawFn) -> list[tuple[int, int, bool]]:
    """(commitTs, startTs, split_txn) in valid order: txns of 1-4 rows, some cut by split_txn."""
    out = []
    commit = 100
    # a fresh startTs per txn: increasing at equal commitTs, as TiDB does
    for start in range(1, draw(st.integers(1, 15)) + 1):
        commit += draw(st.integers(0, 2))
        for index in range(draw(st.integers(1, 4))):
            out.append((commit, start, index > 0 and draw(st.booleans())))
    return out


@settings(deadline=None)
@given(row_streams(), st.data())
def test_txn_appender_groups_exactly_by_start_ts_and_split(
    user_table: TableInfo, stream: list[tuple[int, int, bool]], data: st.DataObject
) -> None:
    rows = [
        RowChangedEvent(start, commit, user_table, after={"id": i}, split_txn=split)
        for i, (commit, start, split) in enumerate(stream)
    ]
    buffer: list[SingleTableTxn] = []
    appender = TxnAppender()
    cut = 0
    while cut < len(rows):
        size = data.draw(st.integers(1, len(rows) - cut))
        appender.append(buffer, rows[cut : cut + size])
        cut += size
    expected: list[list[RowChangedEvent]] = []
    for index, current in enumerate(rows):
        if index == 0 or current.split_txn or current.start_ts != rows[index - 1].start_ts:
            expected.append([])
        expected[-1].append(current)
    assert [t.rows for t in buffer] == expected
    for txn in buffer:
        assert {(r.start_ts, r.commit_ts) for r in txn.rows} == {(txn.start_ts, txn.commit_ts)}
