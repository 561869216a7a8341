"""BOOTSTRAP cadence: one test per rule of spec/simple-protocol.md 4.3 and 4.4."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.codec.bootstrap import BootstrapCadence, BootstrapSend, BootstrapSettings
from tisink.codec.config import EncoderConfig
from tisink.codec.errors import CodecError
from tisink.codec.simple.options import SimpleOptions
from tisink.core.clock import FeedClock, FixedClock
from tisink.model.table import ColumnInfo, IndexInfo, make_table
from tisink.model.tso import compose_ts

START_MS = 1_700_000_000_000
TICK_MS = 5_000
INTERVAL_S = 120


def table(table_id: int = 1, version: int = 100, name: str = "t", schema: str = "test"):
    return make_table(
        schema,
        name,
        table_id,
        version,
        [ColumnInfo("id", "int", nullable=False)],
        [IndexInfo("PRIMARY", ("id",), unique=True, primary=True)],
    )


def cadence(clock: FixedClock | FeedClock, **config: object) -> BootstrapCadence:
    settings_ = {"send_bootstrap_interval_in_sec": INTERVAL_S, "send_bootstrap_in_msg_count": 10}
    settings_.update(config)
    return BootstrapCadence(BootstrapSettings(**settings_), clock)  # type: ignore[arg-type]


def run_ticks_until(
    c: BootstrapCadence, clock: FixedClock, ms: int
) -> list[tuple[int, BootstrapSend]]:
    """Advance in 1 s steps, ticking each time as a busy sink would; returns (time, send)."""
    sends: list[tuple[int, BootstrapSend]] = []
    while clock.ms < ms:
        clock.advance(1_000)
        sends += [(clock.ms, s) for s in c.tick()]
    return sends


def test_new_table_sends_before_its_first_row_on_every_partition():
    clock = FixedClock(START_MS)
    c = cadence(clock)
    t = table()
    send = c.add_event(t, "topic-a", 3)
    assert send == BootstrapSend(t, "topic-a", (0, 1, 2))
    assert c.active_table_ids == (1,)


def test_table_that_just_sent_does_not_send_again():
    clock = FixedClock(START_MS)
    c = cadence(clock)
    c.add_event(table(), "topic-a", 3)
    assert c.add_event(table(), "topic-a", 3) is None
    clock.advance(TICK_MS)
    assert c.tick() == []


def test_count_triggers_at_the_next_tick_not_before():
    clock = FixedClock(START_MS)
    c = cadence(clock, send_bootstrap_in_msg_count=10)
    t = table()
    c.add_event(t, "topic-a", 1)  # counter 1, reset to 0 by the immediate send
    for _ in range(12):  # overshoots the count: nothing is sent from add_event
        assert c.add_event(t, "topic-a", 1) is None
    clock.advance(TICK_MS - 1)
    assert c.tick() == []
    clock.advance(1)
    assert c.tick() == [BootstrapSend(t, "topic-a", (0,))]
    clock.advance(TICK_MS)
    assert c.tick() == []  # counter was reset


def test_count_just_below_threshold_does_not_send():
    clock = FixedClock(START_MS)
    c = cadence(clock, send_bootstrap_in_msg_count=10)
    c.add_event(table(), "topic-a", 1)
    for _ in range(9):
        c.add_event(table(), "topic-a", 1)
    clock.advance(TICK_MS)
    assert c.tick() == []
    c.add_event(table(), "topic-a", 1)
    clock.advance(TICK_MS)
    assert len(c.tick()) == 1


def test_interval_triggers_a_send_even_without_traffic():
    clock = FixedClock(START_MS)
    c = cadence(clock, send_bootstrap_in_msg_count=1_000_000)
    t = table()
    c.add_event(t, "topic-a", 2)
    interval_ms = INTERVAL_S * 1000
    sends = run_ticks_until(c, clock, START_MS + 3 * interval_ms + TICK_MS)
    assert [s for _, s in sends] == [BootstrapSend(t, "topic-a", (0, 1))] * 3
    times = [START_MS] + [at for at, _ in sends]
    # each send comes at the first tick at least one interval after the previous send
    for previous, at in itertools.pairwise(times):
        assert interval_ms <= at - previous < interval_ms + TICK_MS


def test_interval_boundary_is_inclusive():
    clock = FixedClock(START_MS)
    config = BootstrapSettings(send_bootstrap_interval_in_sec=INTERVAL_S)
    c = BootstrapCadence(config, clock, tick_interval_ms=1)
    c.add_event(table(), "topic-a", 1)
    clock.advance(INTERVAL_S * 1000 - 1)
    assert c.tick() == []
    clock.advance(1)
    assert len(c.tick()) == 1  # now - last_send == interval sends


def test_inactive_table_is_evicted_then_gets_an_immediate_bootstrap():
    clock = FixedClock(START_MS)
    c = cadence(clock)
    t = table()
    c.add_event(t, "topic-a", 1)
    clock.advance(30 * 60 * 1000)  # exactly 30 min: not yet inactive (strictly older)
    c.tick()
    assert c.active_table_ids == (1,)
    clock.advance(30_000)
    c.tick()
    assert c.active_table_ids == ()
    assert c.add_event(t, "topic-a", 1) == BootstrapSend(t, "topic-a", (0,))


def test_traffic_keeps_a_table_active():
    clock = FixedClock(START_MS)
    c = cadence(clock)
    for _ in range(10):
        c.add_event(table(), "topic-a", 1)
        clock.advance(20 * 60 * 1000)
        c.tick()
    assert c.active_table_ids == (1,)


def test_all_partitions_off_sends_to_partition_zero_once_for_two_events():
    clock = FixedClock(START_MS)
    c = cadence(clock, send_bootstrap_to_all_partition=False)
    sends = [c.add_event(table(), "topic-a", 8), c.add_event(table(), "topic-a", 8)]
    produced = [s for s in sends if s is not None]
    assert len(produced) == 1
    assert produced[0].partitions == (0,)


@pytest.mark.parametrize("partitions", [1, 3, 16])
def test_all_partitions_on_matches_the_topic_partition_count(partitions: int):
    clock = FixedClock(START_MS)
    c = cadence(clock)
    send = c.add_event(table(), "topic-a", partitions)
    assert send is not None
    assert send.partitions == tuple(range(partitions))


def test_partition_count_change_is_used_by_the_next_send():
    clock = FixedClock(START_MS)
    c = cadence(clock, send_bootstrap_in_msg_count=1)
    c.add_event(table(), "topic-a", 2)
    c.add_event(table(), "topic-a", 5)
    clock.advance(TICK_MS)
    assert [s.partitions for s in c.tick()] == [(0, 1, 2, 3, 4)]


@pytest.mark.parametrize(
    ("interval", "count", "protocol"),
    [
        (0, 10, "simple"),
        (-1, 10, "simple"),
        (120, 0, "simple"),
        (120, -5, "simple"),
        (120, 10, "debug"),
    ],
)
def test_disabled_when_a_trigger_is_not_positive_or_protocol_not_simple(interval, count, protocol):
    """The cadence gets the settings only from a protocol whose entry sends bootstraps."""
    clock = FixedClock(START_MS)
    settings = BootstrapSettings(interval, count) if protocol == "simple" else None
    config = EncoderConfig(protocol=protocol, options=settings and SimpleOptions(interval, count))
    assert (config.bootstrap is None) == (protocol != "simple")
    c = BootstrapCadence(config.bootstrap, clock)
    assert c.enabled is False
    assert c.add_event(table(), "topic-a", 3) is None
    clock.advance(10 * INTERVAL_S * 1000)
    assert c.tick() == []


def test_latest_table_info_is_used_after_a_version_change():
    clock = FixedClock(START_MS)
    c = cadence(clock, send_bootstrap_in_msg_count=2)
    v1, v2 = table(version=100), table(version=200)
    c.add_event(v1, "topic-a", 1)
    c.add_event(v1, "topic-a", 1)
    c.add_event(v2, "topic-a", 1)  # new schema: stored, but no send and no counter reset
    clock.advance(TICK_MS)
    assert [s.table for s in c.tick()] == [v2]


def test_latest_table_info_is_used_after_a_rename_with_the_same_version():
    clock = FixedClock(START_MS)
    c = cadence(clock, send_bootstrap_in_msg_count=1)
    old, renamed = table(name="t"), table(name="t_renamed")
    c.add_event(old, "topic-a", 1)
    c.add_event(renamed, "topic-b", 1)
    clock.advance(TICK_MS)
    (send,) = c.tick()
    assert send.table is renamed
    assert send.topic == "topic-a"  # like ticdc, the topic is the one the table started with


def test_same_version_and_name_keeps_the_stored_table_info():
    clock = FixedClock(START_MS)
    c = cadence(clock, send_bootstrap_in_msg_count=1)
    first = table()
    same = dataclasses.replace(first, columns=(*first.columns, ColumnInfo("x", "int", id=2)))
    c.add_event(first, "topic-a", 1)
    c.add_event(same, "topic-a", 1)
    clock.advance(TICK_MS)
    assert c.tick()[0].table is first


def test_tick_is_rate_limited_to_the_tick_interval():
    clock = FixedClock(START_MS)
    c = cadence(clock, send_bootstrap_in_msg_count=1)
    c.add_event(table(), "topic-a", 1)
    clock.advance(TICK_MS)
    c.add_event(table(), "topic-a", 1)
    assert len(c.tick()) == 1
    c.add_event(table(), "topic-a", 1)  # due by count again, but the next tick is 5 s away
    clock.advance(TICK_MS - 1)
    assert c.tick() == []
    clock.advance(1)
    assert len(c.tick()) == 1


def test_tables_are_checked_independently_in_first_seen_order():
    clock = FixedClock(START_MS)
    c = cadence(clock, send_bootstrap_in_msg_count=2)
    a, b, d = table(1, name="a"), table(2, name="b"), table(3, name="d")
    for t in (b, a, d):
        c.add_event(t, "topic", 1)
    for t in (a, a, b, b):
        c.add_event(t, "topic", 1)
    clock.advance(TICK_MS)
    assert [s.table for s in c.tick()] == [b, a]


def test_state_is_keyed_by_table_id():
    clock = FixedClock(START_MS)
    c = cadence(clock)
    assert c.add_event(table(1), "topic", 1) is not None
    assert c.add_event(table(2), "topic", 1) is not None
    assert c.add_event(table(1), "topic", 1) is None


def test_zero_partitions_is_an_error_naming_table_and_topic():
    c = cadence(FixedClock(START_MS))
    with pytest.raises(CodecError, match=r"test\.t.*'topic-a'"):
        c.add_event(table(), "topic-a", 0)


def test_at_start_only_when_the_flag_is_on():
    clock = FixedClock(START_MS)
    tables = [(table(1, name="a"), "ddl-topic", 3), (table(2, name="b"), "ddl-topic", 3)]
    assert cadence(clock).at_start(tables) == []
    on = cadence(clock, send_all_bootstrap_at_start=True, send_bootstrap_to_all_partition=False)
    sends = on.at_start(tables)
    # at-start bootstraps go through the DDL path: every partition, whatever to-all-partition says
    assert [(s.table.table, s.partitions) for s in sends] == [("a", (0, 1, 2)), ("b", (0, 1, 2))]
    # cadence state is untouched: the first row still gets its immediate bootstrap
    assert on.add_event(tables[0][0], "dml-topic", 3) is not None


def test_at_start_ignores_interval_and_count_like_ticdc():
    c = cadence(
        FixedClock(START_MS), send_all_bootstrap_at_start=True, send_bootstrap_interval_in_sec=0
    )
    assert c.enabled is False
    assert len(c.at_start([(table(), "ddl", 1)])) == 1


def test_feed_clock_runs_are_reproducible():
    def run() -> list[tuple[int, int, tuple[int, ...]]]:
        clock = FeedClock()
        c = cadence(clock, send_bootstrap_in_msg_count=50)
        out = []
        for i in range(2_000):
            ts = compose_ts(START_MS + i * 700)
            clock.observe_ts(ts)
            t = table(1 + i % 3, name=f"t{i % 3}")
            send = c.add_event(t, "topic", 2)
            if send is not None:
                out.append((i, send.table.table_id, send.partitions))
            out += [(i, s.table.table_id, s.partitions) for s in c.tick()]
        return out

    first = run()
    assert first == run()
    assert len(first) > 3  # immediate sends for three tables plus periodic ones


@settings(max_examples=100, deadline=None)
@given(
    steps=st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 40_000), st.booleans()), max_size=80
    ),
    count=st.integers(1, 20),
)
def test_sends_only_for_known_tables_and_resets_counters(steps, count):
    clock = FixedClock(START_MS)
    c = cadence(clock, send_bootstrap_in_msg_count=count)
    for table_id, advance_ms, do_tick in steps:
        clock.advance(advance_ms)
        t = table(table_id + 1, name=f"t{table_id}")
        known = t.table_id in c.active_table_ids
        send = c.add_event(t, "topic", 2)
        assert (send is None) == known
        if do_tick:
            for s in c.tick():
                assert s.table.table_id in c.active_table_ids
                assert s.partitions == (0, 1)


def test_add_event_with_a_row_count_is_that_many_single_rows() -> None:
    """The MQ sink records a transaction's rows in one call; the count trigger sees them all."""
    clock = FixedClock(1_000)
    config = BootstrapSettings(send_bootstrap_in_msg_count=25, send_bootstrap_interval_in_sec=3600)
    bulk, single = BootstrapCadence(config, clock), BootstrapCadence(config, clock)
    table = make_table("s", "t", 1, 1, [ColumnInfo("id", "int")])
    assert bulk.add_event(table, "topic", 2, 10) is not None
    assert bulk.add_event(table, "topic", 2, 14) is None
    sends = [single.add_event(table, "topic", 2) for _ in range(24)]
    assert sends[0] is not None and not any(sends[1:])
    clock.ms += 5_000
    assert bulk.tick() == [] and single.tick() == []  # 23 rows since the bootstrap: not yet
    bulk.add_event(table, "topic", 2, 2)
    single.add_event(table, "topic", 2)
    single.add_event(table, "topic", 2)
    clock.ms += 5_000
    assert [s.table for s in bulk.tick()] == [table] == [s.table for s in single.tick()]
