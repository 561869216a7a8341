"""Pacers on a fake clock: --rate hands out slots in order across partitions, --speed follows
the records' timestamps, each --loop pass one span later."""

from __future__ import annotations

import asyncio

import pytest

from tisink.replay.pacing import RatePacer, SpeedPacer


class FakeTime:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeTime:
    clock = FakeTime()
    monkeypatch.setattr(asyncio, "sleep", clock.sleep)
    return clock


def _records(stamps: list[int]) -> list[int | None]:
    """The timestamps of a chunk's records, as the sender hands them to the pacer."""
    return list(stamps)


async def test_rate_slots_are_shared_and_never_taken_twice(fake: FakeTime) -> None:
    pacer = RatePacer(1000.0, clock=fake)  # slices of 10 records (10 ms)
    records = _records([0] * 35)
    sent: list[tuple[float, int]] = []
    for _ in range(4):
        count = await pacer.wait(0, records, 0)
        sent.append((round(fake.now - 100.0, 6), count))
    assert sent == [(0.0, 10), (0.01, 10), (0.02, 10), (0.03, 10)]
    assert await pacer.wait(0, records, 30) == 5  # what is left of the records
    assert fake.now == pytest.approx(100.04)
    # 45 records at 1000/s were planned to end at 100.045
    assert pacer.behind_s(100.045) == pytest.approx(0.0, abs=1e-9)
    assert pacer.behind_s(101.045) == pytest.approx(1.0)


async def test_speed_follows_timestamps_and_loops_one_span_later(fake: FakeTime) -> None:
    pacer = SpeedPacer(2.0, clock=fake)
    records = _records([1000, 1000, 1400, 3000])
    assert await pacer.wait(0, records, 0) == 2  # the first two share a timestamp
    assert fake.now == 100.0
    assert await pacer.wait(0, records, 2) == 1
    assert fake.now == pytest.approx(100.2)  # 400 ms of source time at speed 2
    assert await pacer.wait(0, records, 3) == 1
    assert fake.now == pytest.approx(101.0)
    pacer.span_ms = 2500.0
    assert await pacer.wait(1, records, 0) == 2
    assert fake.now == pytest.approx(101.25)  # the second pass starts one span after the first


def test_pacers_refuse_what_cannot_pace() -> None:
    with pytest.raises(ValueError):
        RatePacer(0)
    with pytest.raises(ValueError):
        SpeedPacer(-1)
