"""``encode_txns`` encodes a request's txns in one call where the protocol has one message per
row, and gives each txn exactly what ``encode_txn`` alone gives it (records by partition, size),
for every such protocol of the registry and any split of the rows into txns; where it cannot
(partition counts differ, an error), it goes txn by txn and names the failing txn as before."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.codec.required_options import encoder_config
from tisink.bench.rows import demo_txns
from tisink.codec.encoder import RowEventEncoder
from tisink.codec.registry import get_protocol, protocols
from tisink.core.clock import FixedClock
from tisink.eventsink.mq.txn_encoding import FailedTxn, Txn, encode_txn, encode_txns
from tisink.eventsink.router import DispatchRule, EventRouter
from tisink.model.events import RowChangedEvent

BUILD_MS = 1_714_550_400_000
ROWS = [row for txn in demo_txns(400) for row in txn]


def _encoder(protocol: str) -> RowEventEncoder:
    config = encoder_config(protocol, time_zone="UTC")
    return get_protocol(protocol).new_encoder(config, FixedClock(BUILD_MS))


PER_ROW = sorted(name for name in protocols() if _encoder(name).message_per_row)


def _router() -> EventRouter:
    return EventRouter("cdc", [DispatchRule(("*.*",), partition="index-value")], time_zone="UTC")


def _one_by_one(protocol: str, txns: Sequence[Txn]) -> list[object]:
    encoder, router = _encoder(protocol), _router()
    return [encode_txn(encoder, router, rows, partitions) for rows, partitions in txns]


def _split(rows: list[RowChangedEvent], sizes: list[int], partitions: list[int]) -> list[Txn]:
    txns: list[Txn] = []
    start = 0
    for n, size in enumerate(sizes):
        if start >= len(rows):
            break
        txns.append((rows[start : start + size], partitions[n % len(partitions)]))
        start += size
    if start < len(rows):
        txns.append((rows[start:], partitions[0]))
    return txns


def test_the_protocols_with_a_message_per_row_are_covered() -> None:
    assert {"simple", "canal-json", "debezium"} <= set(PER_ROW)


@pytest.mark.parametrize("protocol", PER_ROW)
def test_a_request_of_many_txns_gives_each_what_it_gets_alone(protocol: str) -> None:
    txns: list[Txn] = [(txn, 3) for txn in demo_txns(400)]
    assert len(txns) > 50
    merged = encode_txns(_encoder(protocol), _router(), txns)
    assert merged == _one_by_one(protocol, txns)


@settings(max_examples=30, deadline=None)
@given(
    protocol=st.sampled_from(PER_ROW),
    sizes=st.lists(st.integers(1, 9), min_size=1, max_size=40),
    partitions=st.lists(st.sampled_from([1, 3, 6]), min_size=1, max_size=3),
)
def test_any_split_into_txns_gives_the_same_records(
    protocol: str, sizes: list[int], partitions: list[int]
) -> None:
    txns = _split(ROWS[:150], sizes, partitions)
    assert encode_txns(_encoder(protocol), _router(), txns) == _one_by_one(protocol, txns)


@pytest.mark.parametrize("protocol", ["simple", "canal-json"])
def test_a_failing_txn_is_named_as_when_encoded_alone(protocol: str) -> None:
    good = ROWS[:20]
    bad_row = good[5]
    image = dict(bad_row.after or bad_row.before or {})
    column = next(c for c in bad_row.table.columns if c.family.name == "INT")
    image[column.name] = "not a number"
    bad = RowChangedEvent(bad_row.start_ts, bad_row.commit_ts, bad_row.table, None, image)
    txns: list[Txn] = [([row], 3) for row in good[:7]] + [([bad], 3)] + [(good[7:], 3)]
    failed = encode_txns(_encoder(protocol), _router(), txns)
    assert isinstance(failed, FailedTxn) and failed.index == 7
    assert column.name in failed.reason
