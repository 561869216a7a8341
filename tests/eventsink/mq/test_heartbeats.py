"""IdlePartitions: which partitions are due a HEARTBEAT, by the injected clock."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tisink.core.clock import FixedClock
from tisink.eventsink.mq.heartbeats import IdlePartitions


def test_a_partition_is_due_once_per_idle_interval() -> None:
    clock = FixedClock(1_000)
    idle = IdlePartitions(10_000, clock)
    idle.watch("t", 3)
    clock.advance(4_000)
    idle.written("t", [1], commit_ts=77)
    assert idle.newest_ts == 77
    clock.advance(5_999)
    assert idle.due() == {}
    clock.advance(1)
    assert idle.due() == {"t": [0, 2]}
    assert idle.due() == {}
    clock.advance(4_000)
    assert idle.due() == {"t": [1]}
    clock.advance(6_000)
    assert idle.due() == {"t": [0, 2]}


def test_watch_keeps_the_timers_of_known_partitions() -> None:
    clock = FixedClock(0)
    idle = IdlePartitions(1_000, clock)
    idle.watch("a", 1)
    clock.advance(600)
    idle.watch("a", 2)
    idle.watch("b", 1)
    clock.advance(400)
    assert idle.due() == {"a": [0]}
    clock.advance(600)
    assert idle.due() == {"a": [1], "b": [0]}


def test_newest_ts_never_goes_back() -> None:
    idle = IdlePartitions(1, FixedClock(0))
    idle.written("t", [0], 50)
    idle.written("t", [0], 40)
    assert idle.newest_ts == 50


def test_interval_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        IdlePartitions(0, FixedClock(0))


@given(st.lists(st.tuples(st.integers(0, 3_000), st.integers(0, 3)), max_size=60))
def test_property_no_partition_goes_longer_than_the_interval_unheard(
    steps: list[tuple[int, int]],
) -> None:
    """Checked after every step: each partition was written or given a heartbeat within the
    interval, and never twice a heartbeat within it."""
    clock = FixedClock(0)
    interval = 1_000
    idle = IdlePartitions(interval, clock)
    idle.watch("t", 4)
    heard = dict.fromkeys(range(4), 0)
    last_beat: dict[int, int] = {}
    for advance, partition in steps:
        clock.advance(advance)
        for beat in idle.due().get("t", []):
            assert clock.ms - heard[beat] >= interval
            assert beat not in last_beat or clock.ms - last_beat[beat] >= interval
            heard[beat] = last_beat[beat] = clock.ms
        assert all(clock.ms - at < interval for at in heard.values())
        idle.written("t", [partition], clock.ms)
        heard[partition] = clock.ms
