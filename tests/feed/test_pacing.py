"""Steady load: the pacer's schedule on an injected clock, and a paced player that hands rows
over as it goes while delivering exactly what an unpaced one delivers, table by table."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import HealthCheck, given, settings

from tests.feed.fakes import LateSink, RecordingDDLSink
from tests.feed.test_player import feeds
from tisink.feed import play_inline
from tisink.feed.pacing import Pacer
from tisink.feed.records import FeedRecord, FeedRow
from tisink.feed.workload import generate_records
from tisink.model.events import RowChangedEvent
from tisink.tablesink import TableSink


class VirtualTime:
    """A clock that moves only when the pacer sleeps (and by what it asked)."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


def paced(rate: float, time: VirtualTime) -> Pacer:
    return Pacer(rate, clock=time, sleep=time.sleep)


def test_rates_that_mean_nothing_are_refused() -> None:
    for rate in (0.0, -5.0, float("inf"), float("nan")):
        with pytest.raises(ValueError, match="positive"):
            Pacer(rate)


def test_the_chunk_is_five_milliseconds_of_rows() -> None:
    assert Pacer(1000).chunk == 5
    assert Pacer(100_000).chunk == 500
    assert Pacer(10).chunk == 1


async def test_ahead_of_the_schedule_it_hands_over_then_sleeps_until_due() -> None:
    time = VirtualTime()
    pacer = paced(1000, time)
    pacer.start()
    handed: list[float] = []

    async def hand_over() -> None:
        handed.append(time.now)
        time.now += 0.001  # the hand-over itself takes a millisecond

    time.now += 0.002
    await pacer.pace(10, hand_over)  # 10 rows are due 10 ms after the start
    assert handed == [pytest.approx(100.002)]
    assert time.slept == [pytest.approx(0.007)]
    assert time.now == pytest.approx(100.010)


async def test_behind_the_schedule_it_neither_hands_over_nor_sleeps() -> None:
    time = VirtualTime()
    pacer = paced(1000, time)
    pacer.start()
    called: list[bool] = []

    async def hand_over() -> None:
        called.append(True)

    time.now += 0.050
    await pacer.pace(10, hand_over)
    assert called == [] and time.slept == []
    pacer.finish(20)  # 20 rows planned for 20 ms took 50
    assert pacer.behind_s == pytest.approx(0.030)


async def test_a_play_that_keeps_up_is_not_behind() -> None:
    time = VirtualTime()
    pacer = paced(500, time)
    pacer.start()
    for rows in range(5, 101, 5):
        await pacer.pace(rows, _nothing)
    pacer.finish(100)
    assert pacer.behind_s == 0.0
    assert time.now == pytest.approx(100.2)


def by_table(rows: list[RowChangedEvent]) -> dict[int, list[int]]:
    """Each table's rows (by identity) in the order the event sink got them."""
    out: dict[int, list[int]] = {}
    for row in rows:
        out.setdefault(row.table.table_id, []).append(id(row))
    return out


async def _nothing() -> None:
    return None


async def _play(records: list[FeedRecord], pacer: Pacer | None) -> tuple[LateSink, list]:
    events = LateSink(wants_txn=True, seed=3)
    ddl_sink = RecordingDDLSink(events)
    calls: list[int] = []
    original = events.write_events

    def counting(batch):  # type: ignore[no-untyped-def]
        calls.append(sum(len(e.event.rows) for e in batch))
        original(batch)

    events.write_events = counting  # type: ignore[method-assign]
    await play_inline(
        records,
        events,
        ddl_sink,
        lambda tid: TableSink(tid, events),
        pacer=pacer,
    )
    return events, calls


async def test_a_paced_play_hands_rows_over_as_it_goes() -> None:
    """4000 rows at 1000 rows/s: the resolve cadence alone (every 4096 rows) would hand them
    over at the end; paced, no hand-over is larger than a few chunks."""
    records = list(generate_records("all-types", 5, 4000))
    time = VirtualTime()
    events, calls = await _play(records, paced(1000, time))
    rows = [r.row for r in records if type(r) is FeedRow]
    assert by_table(events.written) == by_table(rows)
    assert time.now - 100 == pytest.approx(4.0, abs=0.01)
    assert max(calls) <= 50
    assert sum(calls) == len(rows)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(feeds())
def test_pacing_changes_when_rows_leave_never_what_leaves(records: list[FeedRecord]) -> None:
    unpaced, _ = asyncio.run(_play(records, None))
    time = VirtualTime()
    held, _ = asyncio.run(_play(records, paced(200, time)))
    assert by_table(held.written) == by_table(unpaced.written)
    assert [(kind, id(x)) for kind, x in held.log if kind == "ddl"] == [
        (kind, id(x)) for kind, x in unpaced.log if kind == "ddl"
    ]
