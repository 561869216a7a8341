"""Delivery counters per second of acknowledgement: what a play's series is built from."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.eventsink.mq.test_dml_sink import BY_ID, Acks, make_txn
from tisink.codec.debug import DebugEncoder
from tisink.codec.message import MessageType
from tisink.eventsink.capabilities import acked_seconds, merge_seconds
from tisink.eventsink.mq.dml_sink import MQDMLSink
from tisink.eventsink.mq.stats import MQStats


class Ticks:
    def __init__(self) -> None:
        self.now = 1_700_000_000.2

    def __call__(self) -> float:
        return self.now


def test_counts_land_in_the_second_they_were_acknowledged_in() -> None:
    clock = Ticks()
    stats = MQStats(clock=clock)
    stats.count(MessageType.DML, 100, 1)
    clock.now += 0.5
    stats.count_batch(MessageType.WATERMARK, 3, 20)
    clock.now += 1.0
    stats.count_second(7, 700)
    assert stats.per_second() == {1_700_000_000: (4, 160), 1_700_000_001: (7, 700)}
    assert stats.bytes == 160 and sum(stats.messages.values()) == 4


seconds = st.dictionaries(
    st.integers(0, 20), st.tuples(st.integers(0, 1000), st.integers(0, 10**6)), max_size=8
)


@given(st.lists(seconds, max_size=4))
def test_merged_seconds_add_up(parts: list[dict[int, tuple[int, int]]]) -> None:
    merged = merge_seconds(parts)
    assert list(merged) == sorted(merged)
    for index in (0, 1):
        assert sum(v[index] for v in merged.values()) == sum(
            v[index] for part in parts for v in part.values()
        )


def test_sinks_without_seconds_have_none() -> None:
    assert acked_seconds(object()) == {}


async def test_a_dml_sinks_seconds_add_up_to_its_stats(fake_producer, make_mq_table) -> None:
    producer = fake_producer(partitions=3)
    sink = MQDMLSink(producer, DebugEncoder(), BY_ID, None, scheme="fake")
    acks = Acks()
    table = make_mq_table()
    sink.write_events(
        [acks.event(make_txn(table, 100 + n, [n * 4 + i for i in range(4)])) for n in range(10)]
    )
    await sink.close()
    stats = sink.stats()
    per_second = sink.acked_seconds()
    assert sum(m for m, _ in per_second.values()) == stats.message_count() == 40
    assert sum(b for _, b in per_second.values()) == stats.bytes > 0
