"""Steady load: the pacer's schedule on an injected clock, and a paced player that hands rows
over as it goes while delivering exactly what an unpaced one delivers, table by table; the
target a paced play reports is what its rate or profile asked for over the time it ran."""

from __future__ import annotations

import asyncio
import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.feed.fakes import LateSink, RecordingDDLSink
from tests.feed.feed_strategies import profile_text
from tests.feed.test_player import feeds
from tisink.feed import play_inline
from tisink.feed.format.records import FeedRecord, FeedRow
from tisink.feed.pacing import Pacer
from tisink.feed.rate_profile import RateProfile, parse_rate_profile
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


def profile_texts() -> st.SearchStrategy[str]:
    """``--rate`` texts: a steady number, or up to five stages of any kind with rows."""
    stage = st.tuples(
        st.sampled_from(["ramp", "hold", "spike", "idle"]),
        st.integers(0, 5000),
        st.integers(0, 5000),
        st.integers(1, 3000),
    )

    staged = (
        st.lists(stage, min_size=1, max_size=5)
        .filter(lambda s: any(k != "idle" and (b or (k == "ramp" and a)) for k, a, b, _ in s))
        .map(profile_text)
    )
    return st.one_of(st.integers(1, 100_000).map(str), staged)


def _rate_at(profile: RateProfile, t: float) -> float:
    """The profile's rate ``t`` seconds in: the line of the stage that ``t`` falls in."""
    if profile.steady:
        return profile.stages[0].start
    t %= sum(s.duration_s for s in profile.stages)
    for stage in profile.stages:
        if t < stage.duration_s:
            return stage.start + (stage.end - stage.start) * t / stage.duration_s
        t -= stage.duration_s
    return profile.stages[-1].end


def _integral(profile: RateProfile, seconds: float) -> float:
    """The profile's rate integrated over its first ``seconds``: cut where a stage ends, the
    rate is a straight line in each piece, so the rate at its middle times its length is its
    area exactly."""
    ends, elapsed = [], 0.0
    cycle = sum(s.duration_s for s in profile.stages)
    for round_ in range(int(seconds // cycle) + 1):
        elapsed = round_ * cycle
        for stage in profile.stages:
            elapsed += stage.duration_s
            ends.append(elapsed)
    cuts = sorted({0.0, seconds, *(end for end in ends if 0 < end < seconds)})
    return sum((b - a) * _rate_at(profile, (a + b) / 2) for a, b in itertools.pairwise(cuts))


@given(profile_texts(), st.floats(0.001, 60.0), st.integers(1, 200_000))
def test_the_target_is_the_profile_over_the_time_played(
    text: str, finished_s: float, rows: int
) -> None:
    """Whatever the profile and however long the play ran (the schedule's time for its rows,
    or the time they took when longer), the target is the rows the profile asks for in that
    time, divided by it."""
    profile = parse_rate_profile(text)
    time = VirtualTime()
    pacer = Pacer(profile, clock=time, sleep=time.sleep)
    pacer.start()
    time.now += finished_s
    pacer.finish(rows)
    played = max(finished_s, profile.due_s(rows))
    assert pacer.played_s == pytest.approx(played, rel=1e-9)
    expected = _integral(profile, played) / played
    assert pacer.target == pytest.approx(expected, rel=1e-9, abs=1e-9)


def test_a_short_play_on_a_long_profile_is_held_to_what_it_played() -> None:
    """The issue's case: 3,100 rows never leave a 20 s ramp from 500 to 3,000 rows/s, so the
    target is their rate over the 4.1 s they were due in, not the round's 2,272.7 mean."""
    profile = parse_rate_profile("ramp:500-3000/20s,hold:3000/30s,idle:5s")
    time = VirtualTime()
    pacer = Pacer(profile, clock=time, sleep=time.sleep)
    pacer.start()
    time.now += 4.0
    pacer.finish(3100)
    # 500 t + 62.5 t^2 = 3100
    due = (-500 + (500**2 + 4 * 62.5 * 3100) ** 0.5) / (2 * 62.5)
    assert pacer.played_s == pytest.approx(due)
    assert pacer.target == pytest.approx(3100 / due)
    assert profile.mean == pytest.approx(125_000 / 55)
    assert Pacer(1500.0).target == 1500.0


def test_a_play_that_stopped_part_way_is_held_to_the_time_it_ran() -> None:
    """No ``finish`` (a failed play): the played time is the time since the first row."""
    profile = parse_rate_profile("ramp:0-1000/10s")
    time = VirtualTime()
    pacer = Pacer(profile, clock=time, sleep=time.sleep)
    assert pacer.played_s == 0.0
    pacer.start()
    time.now += 2.0
    assert pacer.played_s == pytest.approx(2.0)
    assert pacer.target == pytest.approx(100.0)  # 0 to 200 rows/s over those 2 s
