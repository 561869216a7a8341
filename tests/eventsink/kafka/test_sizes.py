"""check_sizes: a record over max-message-bytes is refused before sending, and records whose
size bound is known (SizedRecords) are checked by that bound alone."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tisink.core.framing import RECORD_OVERHEAD
from tisink.eventsink.kafka.errors import KafkaMessageTooLargeError
from tisink.eventsink.kafka.sizes import check_sizes
from tisink.eventsink.mq.producer import SizedRecords

LIMIT = 1000


def test_a_record_over_the_limit_is_named() -> None:
    records = [(None, b"v" * 10), (b"k", b"v" * (LIMIT - RECORD_OVERHEAD))]
    with pytest.raises(KafkaMessageTooLargeError, match=r"record 2 of 2 .* topic t partition 3"):
        check_sizes(records, LIMIT, "t", 3)


def test_a_bound_under_the_limit_is_one_comparison() -> None:
    """The bound is trusted: the records are not looked at (here one breaks it, which a
    replay's reader never does), so a replayed send costs no per-record size check."""
    check_sizes(SizedRecords([(None, b"v" * LIMIT)], largest=10), LIMIT, "t", 0)


def test_a_loose_bound_falls_back_to_looking_at_each_record() -> None:
    """A bound over the limit is no verdict: the records themselves decide."""
    fits = SizedRecords([(None, b"v" * 10)], largest=LIMIT * 2)
    check_sizes(fits, LIMIT, "t", 0)
    over = SizedRecords([(None, b"v" * LIMIT)], largest=LIMIT * 2)
    with pytest.raises(KafkaMessageTooLargeError):
        check_sizes(over, LIMIT, "t", 0)


@given(st.lists(st.tuples(st.none() | st.binary(max_size=40), st.binary(max_size=80)), min_size=1))
def test_a_true_bound_gives_the_same_verdict_as_the_records(
    records: list[tuple[bytes | None, bytes]],
) -> None:
    largest = max(len(v) + len(k or b"") for k, v in records)
    limit = RECORD_OVERHEAD + 60
    refused: list[bool] = []
    for batch in (records, SizedRecords(records, largest)):
        try:
            check_sizes(batch, limit, "t", 0)
            refused.append(False)
        except KafkaMessageTooLargeError:
            refused.append(True)
    assert refused[0] == refused[1] == (largest > 60)
