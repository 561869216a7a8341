"""AckLatency: acknowledgement latency against known distributions, on an injected clock."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.model.events import ResolvedTs, RowChangedEvent
from tisink.tablesink import AckLatency, TableSink, merge_reports
from tisink.tablesink.ack_latency import bucket_us
from tisink.tablesink.latency_report import HIGHEST_US, new_histogram

Row = Callable[..., RowChangedEvent]
Held = Callable[..., Any]


class FakeClock:
    """Monotonic seconds that move only when the test says so."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class _Rows:
    """What a callback needs of a transaction: its rows."""

    def __init__(self, count: int) -> None:
        self.rows = [None] * count


def recorder(clock: FakeClock) -> AckLatency:
    return AckLatency(clock=clock, wall_offset=1_000.0)


@given(st.integers(min_value=0, max_value=HIGHEST_US))
def test_bucket_is_the_histograms_lowest_equivalent_value(us: int) -> None:
    assert bucket_us(us) == new_histogram().get_lowest_equivalent_value(us)


def test_percentiles_of_a_uniform_distribution() -> None:
    """1000 rows acknowledged 1, 2, ... 1000 ms after the hand-over: p50 500 ms, p99 990 ms,
    p99.9 999 ms, max 1000 ms, mean 500.5 ms, within HdrHistogram's 0.1 %."""
    clock = FakeClock()
    latency = recorder(clock)
    ack = latency.row_callbacks(lambda: None)
    callbacks = [next(ack) for _ in range(1000)]
    for ms, callback in enumerate(callbacks, start=1):
        clock.now = ms / 1000
        callback()
    figures = latency.report().latency_ms()
    expected = {"p50": 500, "p95": 950, "p99": 990, "p999": 999, "max": 1000, "mean": 500.5}
    assert figures["count"] == 1000
    for name, value in expected.items():
        assert abs(figures[name] - value) <= value * 0.001 + 0.001, (name, figures[name])


def test_transaction_callbacks_count_their_rows() -> None:
    """A callback per transaction: its rows share its latency."""
    clock = FakeClock(5.0)
    latency = recorder(clock)
    fired: list[int] = []
    txns = [_Rows(3), _Rows(1)]
    first, second = latency.txn_callbacks(lambda: fired.append(1), txns)  # type: ignore[arg-type]
    clock.now = 5.002
    first()
    clock.now = 5.010
    second()
    report = latency.report()
    histogram = report.total()
    assert fired == [1, 1]
    assert histogram.get_total_count() == 4
    assert histogram.get_count_at_value(2000) == 3
    assert histogram.get_count_at_value(10_000) == 1
    assert report.rows == 4


def test_seconds_are_epoch_seconds_of_the_acknowledgement() -> None:
    clock = FakeClock(0.25)
    latency = recorder(clock)  # clock 0 is epoch second 1000
    ack = latency.row_callbacks(lambda: None)
    for now in (0.5, 0.99, 1.0, 3.5):
        clock.now = now
        next(ack)()
    report = latency.report()
    assert {s: e.rows for s, e in report.seconds.items()} == {1000: 2, 1001: 1, 1003: 1}
    assert abs(report.second_p99_ms(1003) - 3250) <= 3.25  # ms, within 0.1 %
    assert report.second_p99_ms(1002) == 0.0


def test_acknowledgements_after_a_report_join_their_second() -> None:
    clock = FakeClock(0.1)
    latency = recorder(clock)
    ack = latency.row_callbacks(lambda: None)
    next(ack)()
    assert latency.report().rows == 1
    clock.now = 0.2
    next(ack)()
    report = latency.report()
    assert report.seconds[1000].rows == 2
    assert report.total().get_total_count() == 2


acks = st.lists(
    st.tuples(
        st.floats(min_value=0, max_value=5, allow_nan=False),  # hand-over time
        st.floats(min_value=0, max_value=2, allow_nan=False),  # latency
        st.integers(min_value=1, max_value=50),  # rows of the transaction
    ),
    max_size=60,
)


def _replay(items: list[tuple[float, float, int]], latency: AckLatency, clock: FakeClock) -> None:
    """Hand each transaction over at its time, fire the callbacks in acknowledgement order."""
    pending = []
    for handed, wait, rows in sorted(items):
        clock.now = handed
        (callback,) = latency.txn_callbacks(lambda: None, [_Rows(rows)])  # type: ignore[list-item]
        pending.append((handed + wait, callback))
    for at, callback in sorted(pending, key=lambda p: p[0]):
        clock.now = at
        callback()


@settings(max_examples=50, deadline=None)
@given(acks)
def test_seconds_add_up_to_every_row(items: list[tuple[float, float, int]]) -> None:
    clock = FakeClock()
    latency = recorder(clock)
    _replay(items, latency, clock)
    report = latency.report()
    rows = sum(r for _, _, r in items)
    assert report.rows == rows
    assert report.total().get_total_count() == rows
    assert sum(e.rows for e in report.seconds.values()) == rows


@settings(max_examples=25, deadline=None)
@given(acks, acks)
def test_merged_reports_equal_one_recorder(
    left: list[tuple[float, float, int]], right: list[tuple[float, float, int]]
) -> None:
    """Two executors' reports merged = one recorder that saw everything (Spark plays)."""
    parts = []
    for items in (left, right):
        clock = FakeClock()
        latency = recorder(clock)
        _replay(items, latency, clock)
        parts.append(latency.report())
    merged = merge_reports(parts)
    clock = FakeClock()
    whole = recorder(clock)
    _replay(left + right, whole, clock)
    expected = whole.report()
    assert merged.latency_ms() == expected.latency_ms()
    assert {s: e.rows for s, e in merged.seconds.items()} == {
        s: e.rows for s, e in expected.seconds.items()
    }
    for second in expected.seconds:
        assert merged.second_p99_ms(second) == expected.second_p99_ms(second)


def test_a_table_sink_measures_from_hand_over_to_callback(row: Row, held_sink: Held) -> None:
    """Row sinks: one latency per row; transaction sinks: one per txn, counted per row."""
    for wants_txn in (False, True):
        clock = FakeClock(10.0)
        latency = recorder(clock)
        sink = held_sink(wants_txn=wants_txn)
        table_sink = TableSink(148, sink, latency=latency)
        table_sink.append_row_changed_events([row(10, 9), row(10, 9), row(12, 11)])
        table_sink.update_resolved_ts(ResolvedTs.normal(12))
        clock.now = 10.004
        sink.ack(0)
        clock.now = 10.007
        sink.ack_all()
        histogram = latency.report().total()
        assert histogram.get_total_count() == 3
        first = 2 if wants_txn else 1  # the first txn holds both rows at commit ts 10
        assert histogram.get_count_at_value(4000) == first
        assert histogram.get_count_at_value(7000) == 3 - first
        assert table_sink.get_checkpoint_ts().ts == 12


def test_without_a_recorder_the_callback_is_the_trackers_ack(row: Row, held_sink: Held) -> None:
    sink = held_sink()
    table_sink = TableSink(148, sink)
    table_sink.append_row_changed_events([row(10, 9), row(12, 11)])
    table_sink.update_resolved_ts(ResolvedTs.normal(12))
    assert sink.events[0].callback is sink.events[1].callback
    assert type(sink.events[0].callback).__name__ == "method-wrapper"
