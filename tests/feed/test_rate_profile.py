"""Rate profiles: the stages' arithmetic, the pacer on them, and the commit-time spacing of a
workload that names one."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.feed.feed_strategies import Stage, profile_text
from tisink.feed.format.records import FeedRow
from tisink.feed.pacing import Pacer
from tisink.feed.rate_profile import RateProfileError, parse_rate_profile
from tisink.feed.workload import generate_records, parse_scenario
from tisink.model.tso import LOGICAL_BITS

PROFILE = "ramp:1000-3000/2s,hold:3000/1s,idle:2s,spike:10000/0.5s"


def test_stages_give_the_rows_due_at_each_moment() -> None:
    profile = parse_rate_profile(PROFILE)
    # ramp: 4000 rows in 2 s (1000 in the first ~0.83 s), hold 3000, idle, spike 5000
    assert [s.rows for s in profile.stages] == [4000, 3000, 0, 5000]
    assert profile.due_s(4000) == pytest.approx(2.0)
    assert profile.due_s(7000) == pytest.approx(3.0)
    assert profile.due_s(7001) == pytest.approx(5.0 + 1 / 10000)  # after the idle gap
    assert profile.due_s(12000) == pytest.approx(5.5)
    assert profile.due_s(12000 + 4000) == pytest.approx(5.5 + 2.0)  # then it starts over
    # 1000 t + 500 t^2 = 1000 -> t = sqrt(3) - 1
    assert profile.due_s(1000) == pytest.approx(3**0.5 - 1)
    assert profile.peak == 10000 and profile.mean == pytest.approx(12000 / 5.5)


def test_a_plain_number_is_a_steady_rate() -> None:
    profile = parse_rate_profile("2500")
    assert profile.steady and profile.due_s(5000) == 2.0


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["ramp", "hold", "spike", "idle"]),
            st.integers(0, 5000),
            st.integers(1, 5000),
            st.integers(1, 3000),
        ),
        min_size=1,
        max_size=5,
    ).filter(lambda stages: any(k != "idle" and (a or b) for k, a, b, _ in stages)),
    st.lists(st.integers(0, 100_000), min_size=2, max_size=20),
)
def test_rows_are_due_later_the_more_there_are(stages: list[Stage], counts: list[int]) -> None:
    profile = parse_rate_profile(profile_text(stages))
    due = [profile.due_s(n) for n in sorted(counts)]
    assert due == sorted(due) and due[0] >= 0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ramp:1000/30s", "FROM-TO"),
        ("hold:5000", "/DURATION"),
        ("hold:fast/3s", "not a number"),
        ("hold:100/3h", "duration '3h'"),
        ("burst:100/3s", "not ramp, hold, spike or idle"),
        ("idle:3s", "no stage with rows"),
        ("0", "positive"),
    ],
)
def test_profiles_that_mean_nothing_are_refused(text: str, message: str) -> None:
    with pytest.raises(RateProfileError, match=message):
        parse_rate_profile(text)


async def test_the_pacer_follows_the_stages() -> None:
    now = [0.0]

    async def sleep(seconds: float) -> None:
        now[0] += seconds
        await asyncio.sleep(0)

    async def nothing() -> None:
        return None

    pacer = Pacer(parse_rate_profile(PROFILE), clock=lambda: now[0], sleep=sleep)
    assert pacer.chunk == 50  # 5 ms of the peak rate
    pacer.start()
    for rows, due in ((4000, 2.0), (7000, 3.0), (7001, 5.0001), (12000, 5.5)):
        await pacer.pace(rows, nothing)
        assert now[0] == pytest.approx(due)


def test_a_scenario_profile_shapes_commit_times() -> None:
    text = f"""
rows = 9000
rate_profile = "{PROFILE}"
txn_size = 1
[[tables]]
name = "t"
columns = [{{ name = "v", type = "int" }}]
"""
    scenario = parse_scenario(text, "p.toml")
    rows = [r.row for r in generate_records(scenario, 1) if type(r) is FeedRow]
    first = scenario.start_ms
    per_half_second = Counter(((r.commit_ts >> LOGICAL_BITS) - first) // 500 for r in rows)
    # ramp 1000 -> 3000 over 2 s, 3000/s for 1 s, 2 s of nothing, then 10000/s
    assert per_half_second[0] == pytest.approx(625, abs=3)
    assert per_half_second[3] == pytest.approx(1375, abs=3)
    assert per_half_second[4] == pytest.approx(1500, abs=3)
    assert per_half_second[5] == pytest.approx(1500, abs=3)
    assert per_half_second[6] <= 1 and not any(per_half_second[i] for i in (7, 8, 9))  # idle
    assert per_half_second[10] == 9000 - 7000
