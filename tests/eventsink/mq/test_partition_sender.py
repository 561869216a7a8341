"""Grouping a transaction's records by partition, and deliveries acknowledged as a whole."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tisink.codec.message import Message, MessageType
from tisink.eventsink.mq.partition_sender import Delivery, Segment, group_by_partition


def _targets(partitions: int) -> st.SearchStrategy[tuple[int, list[int]]]:
    return st.tuples(st.just(partitions), st.lists(st.integers(0, partitions - 1), min_size=1))


@given(st.integers(1, 40).flatmap(_targets))
def test_groups_keep_every_record_once_in_order(case: tuple[int, list[int]]) -> None:
    partitions, targets = case
    records = [(b"", b"%d" % i) for i in range(len(targets))]
    groups = group_by_partition(targets, records, partitions)
    assert sorted(p for p, _ in groups) == sorted(set(targets))
    for partition, group in groups:
        assert group == [r for t, r in zip(targets, records, strict=True) if t == partition]


def test_a_delivery_completes_on_its_last_segment_only() -> None:
    fired: list[str] = []
    delivery = Delivery(3, lambda: fired.append("txn"), size=30, rows=3)
    assert not delivery.acked() and not delivery.acked() and fired == []
    assert delivery.acked() and fired == ["txn"]


def test_a_bootstrap_copy_is_its_own_delivery() -> None:
    segment = Segment.of_message(Message(b"abc", b"", MessageType.BOOTSTRAP, 0, "s.t"))
    assert segment.records == [(b"", b"abc")] and segment.table == "s.t"
    assert segment.delivery.size == 3 and segment.delivery.rows == 0
    assert segment.delivery.acked()
