"""AcknowledgedOffsets: acknowledged offsets per partition only move forward."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tisink.eventsink.kafka.errors import KafkaDataLossError
from tisink.eventsink.kafka.offsets import AcknowledgedOffsets


def test_an_offset_going_back_is_data_loss_naming_topic_partition_and_offsets() -> None:
    offsets = AcknowledgedOffsets()
    offsets.acknowledged("t", 2, 0, 10)
    offsets.acknowledged("t", 2, 10, 5)
    offsets.acknowledged("t", 1, 0, 3)
    assert offsets.wrote("t") and not offsets.wrote("u")
    with pytest.raises(KafkaDataLossError, match=r"topic t partition 2: .*offset 0 after .* 14"):
        offsets.acknowledged("t", 2, 0, 1)
    assert offsets.ends() == {("t", 2): 15, ("t", 1): 3}


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(1, 50), st.integers(0, 20)), max_size=40))
def test_property_forward_acks_pass_and_ends_are_their_high_marks(
    acks: list[tuple[int, int, int]],
) -> None:
    """Batches acknowledged at or after the previous end (other writers may have written in
    between) never raise; the end is the last batch's base + count."""
    offsets = AcknowledgedOffsets()
    expected: dict[tuple[str, int], int] = {}
    for partition, count, gap in acks:
        base = expected.get(("t", partition), 0) + gap
        offsets.acknowledged("t", partition, base, count)
        expected["t", partition] = base + count
    assert offsets.ends() == expected
    for (topic, partition), end in expected.items():
        with pytest.raises(KafkaDataLossError):
            offsets.acknowledged(topic, partition, end - 1, 1)


def test_ends_of_several_producers_merge_to_the_furthest() -> None:
    from tisink.eventsink.capabilities import merge_ends

    assert merge_ends({("t", 0): 5, ("t", 1): 2}, {("t", 0): 3, ("u", 0): 1}) == {
        ("t", 0): 5,
        ("t", 1): 2,
        ("u", 0): 1,
    }


def test_a_written_partition_missing_from_metadata_is_data_loss() -> None:
    offsets = AcknowledgedOffsets()
    offsets.acknowledged("t", 0, 0, 4)
    offsets.acknowledged("t", 2, 0, 7)
    offsets.check_partitions("t", {0, 1, 2, 3})
    offsets.check_partitions("u", set())  # never written: nothing to lose
    with pytest.raises(KafkaDataLossError, match=r"topic t partition 2: .* up to 6 there"):
        offsets.check_partitions("t", {0})
