"""The progress tracker: checkpoint only past fully acknowledged events (spec 7.2)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.model.events import ResolvedTs
from tisink.tablesink.progress import ProgressTracker


def rts(ts: int) -> ResolvedTs:
    return ResolvedTs.normal(ts)


def test_starts_at_given_resolved_ts() -> None:
    assert ProgressTracker(1).advance() == rts(0)
    assert ProgressTracker(1, rts(77)).advance() == rts(77)


def test_resolved_ts_without_events_moves_at_once() -> None:
    tracker = ProgressTracker(1)
    tracker.add_resolved_ts(rts(10))
    assert tracker.advance() == rts(10)
    tracker.add_resolved_ts(rts(12))
    assert tracker.advance() == rts(12)


def test_waits_for_every_event_before_the_resolved_ts() -> None:
    tracker = ProgressTracker(1)
    first = tracker.add_events(2)
    tracker.add_resolved_ts(rts(10))
    second = tracker.add_events(1)
    tracker.add_resolved_ts(rts(20))
    second()  # the later flush is acked first
    assert tracker.advance() == rts(0)
    first()
    assert tracker.advance() == rts(0)
    first()
    assert tracker.advance() == rts(20)
    assert tracker.next_event_id == 3
    assert tracker.pending_events() == 0


def test_partial_progress_stops_at_the_first_unacked_range() -> None:
    tracker = ProgressTracker(1)
    first = tracker.add_events(1)
    tracker.add_resolved_ts(rts(10))
    tracker.add_events(1)
    tracker.add_resolved_ts(rts(20))
    first()
    assert tracker.advance() == rts(10)
    assert tracker.pending_events() == 1


def test_resolved_ts_without_events_between_coalesce() -> None:
    tracker = ProgressTracker(1)
    ack = tracker.add_events(1)
    tracker.add_resolved_ts(rts(10))
    tracker.add_resolved_ts(rts(11))
    tracker.add_resolved_ts(rts(12))
    assert tracker.advance() == rts(0)
    ack()
    # one step to the last of them: the intermediate ones were replaced, not queued
    assert tracker.advance() == rts(12)


def test_resolved_ts_after_all_acked_moves_at_once() -> None:
    tracker = ProgressTracker(1)
    ack = tracker.add_events(1)
    ack()
    tracker.add_resolved_ts(rts(5))
    assert tracker.advance() == rts(5)


def test_memory_is_freed_when_acked() -> None:
    tracker = ProgressTracker(1)
    for ts in range(1, 101):
        ack = tracker.add_events(3)
        tracker.add_resolved_ts(rts(ts))
        for _ in range(3):
            ack()
    tracker.advance()
    assert len(tracker._ranges) == 0


def test_frozen_tracker_never_moves() -> None:
    tracker = ProgressTracker(1)
    ack = tracker.add_events(1)
    tracker.add_resolved_ts(rts(10))
    tracker.freeze()
    ack()
    tracker.add_resolved_ts(rts(20))
    assert tracker.advance() == rts(0)
    assert tracker.pending_events() == 0
    assert tracker.frozen


def test_ack_past_the_count_is_loud() -> None:
    tracker = ProgressTracker(1)
    ack = tracker.add_events(1)
    ack()
    with pytest.raises(StopIteration):
        ack()


def test_batch_resolved_ts_is_reported_as_ts_minus_one() -> None:
    tracker = ProgressTracker(1)
    tracker.add_resolved_ts(ResolvedTs.batch(50, 3))
    assert tracker.advance().resolved_mark == 49


@st.composite
def flush_plans(draw: st.DrawFn) -> tuple[list[int], list[int]]:
    """Event counts per flush (0 = a resolved ts with no events) and an ack order."""
    counts = draw(st.lists(st.integers(0, 4), min_size=1, max_size=12))
    order = draw(st.permutations(range(sum(counts))))
    return counts, list(order)


@settings(deadline=None)
@given(flush_plans(), st.data())
def test_checkpoint_matches_the_reference_for_any_ack_order(
    plan: tuple[list[int], list[int]], data: st.DataObject
) -> None:
    counts, order = plan
    tracker = ProgressTracker(9)
    acks = []
    flush_of_event = []
    for flush, count in enumerate(counts):
        ack = tracker.add_events(count) if count else None
        acks.extend([ack] * count)
        flush_of_event.extend([flush] * count)
        tracker.add_resolved_ts(rts(10 * (flush + 1)))
    acked: set[int] = set()
    last = rts(0)
    for event in order:
        acks[event]()
        acked.add(event)
        if data.draw(st.booleans()):
            continue
        now = tracker.advance()
        # reference: the last flush whose every event (and every earlier one) is acked
        done = 0
        for flush in range(len(counts)):
            members = [e for e, f in enumerate(flush_of_event) if f <= flush]
            if all(e in acked for e in members):
                done = flush + 1
        expected = rts(10 * done) if done else rts(0)
        assert now == expected
        assert now >= last
        last = now
    assert tracker.advance() == rts(10 * len(counts))
    assert tracker.pending_events() == 0
