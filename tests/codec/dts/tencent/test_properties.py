"""Invariants: slicing and merging reassemble exactly at any ``max-message-bytes``; synthetic
binlog numbers only grow; values survive the trip through the generated classes."""

from __future__ import annotations

import base64
from itertools import pairwise
from random import Random
from types import ModuleType

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.codec.dts.tencent.support import example_table, new_encoder, ts_at
from tisink.codec.dts import binlog
from tisink.codec.dts.options import DTSOptions
from tisink.codec.dts.tencent.entries import ENVELOPE_OVERHEAD, envelopes
from tisink.model.events import RowChangedEvent

FIXTURES = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
TABLE = example_table()


def reassemble(pb: ModuleType, values: list[bytes]) -> list:
    """The demo's loop: start a buffer at index 0, append, parse after index total-1."""
    items, buffer, expected = [], b"", 0
    for value in values:
        envelope = pb.Envelope.FromString(value)
        assert envelope.version == 1 and envelope.index == expected
        buffer = envelope.data if envelope.index == 0 else buffer + envelope.data
        expected = envelope.index + 1
        if expected == envelope.total:
            items.extend(pb.Entries.FromString(buffer).items)
            expected = 0
    assert expected == 0, "an Entries was left incomplete"
    return items


entry_texts = st.lists(st.text(max_size=300), min_size=1, max_size=12)


@FIXTURES
@given(texts=entry_texts, limit=st.integers(min_value=16, max_value=2000))
def test_random_entries_slice_and_reassemble(pb: ModuleType, texts: list[str], limit: int) -> None:
    entries = [
        pb.Entry(
            header=pb.Header(version=1, messageType=pb.DDL, seqId=i + 1),
            event=pb.Event(ddlEvent=pb.DDLEvent(sql=text)),
        )
        for i, text in enumerate(texts)
    ]
    items = [pb.Entries(items=[e]).SerializeToString() for e in entries]
    values = envelopes(items, limit)
    assert all(len(v) <= limit + ENVELOPE_OVERHEAD for v in values)
    assert reassemble(pb, values) == entries
    # merged greedily: a whole Entries could not have taken the next item too
    for value, following in pairwise(values):
        first, second = pb.Envelope.FromString(value), pb.Envelope.FromString(following)
        if first.total == 1 and second.total == 1:
            next_item = pb.Entries(items=pb.Entries.FromString(second.data).items[:1])
            assert len(first.data) + len(next_item.SerializeToString()) > limit


images = st.fixed_dictionaries(
    {
        "id": st.integers(min_value=-(2**31), max_value=2**31 - 1),
        "u": st.integers(min_value=0, max_value=2**32 - 1),
        "name": st.text(max_size=40),
        "amt": st.decimals(min_value=-999, max_value=999, places=2).map(str),
        "f": st.floats(allow_nan=False, allow_infinity=False),
        "dt": st.just("2024-01-31 12:34:56"),
        "ts": st.just("2021-05-17 07:22:42"),
        "j": st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
        "b": st.binary(max_size=50).map(lambda b: base64.b64encode(b).decode()),
        "n": st.none() | st.text(max_size=5),
    }
)


@FIXTURES
@given(
    rows=st.lists(st.tuples(st.sampled_from(["I", "U", "D"]), images), min_size=1, max_size=25),
    max_message_bytes=st.integers(min_value=200, max_value=3000),
)
def test_random_transactions_reassemble_at_any_size(
    pb: ModuleType, rows: list[tuple[str, dict]], max_message_bytes: int
) -> None:
    ts = ts_at()
    events = [
        RowChangedEvent(
            ts - 1,
            ts,
            TABLE,
            None if op == "I" else image,
            None if op == "D" else image,
        )
        for op, image in rows
    ]
    whole = new_encoder().encode_rows(events).records
    assert len(whole) == 1
    small = new_encoder(max_message_bytes=max_message_bytes).encode_rows(events)
    values = [v for _, v in small.records]
    assert all(len(v) <= max_message_bytes - 36 - 32 for v in values)
    assert small.size == sum(map(len, values))
    assert reassemble(pb, values) == reassemble(pb, [whole[0][1]])
    decoded_rows = [
        row for entry in reassemble(pb, values)[1:-1] for row in entry.event.dmlEvent.rows
    ]
    assert len(decoded_rows) == len(events)
    for (op, image), row in zip(rows, decoded_rows, strict=True):
        values_of = row.oldColumns if op == "D" else row.newColumns
        assert values_of[0].sv == str(image["id"])
        assert values_of[2].charset == "utf8mb4"
        assert values_of[2].bv.decode("utf-8") == image["name"]
        assert values_of[3].sv == image["amt"]
        assert float(values_of[4].sv) == image["f"]


@settings(deadline=None)
@given(
    steps=st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=1 << 20),
            st.sampled_from(["txn", "ddl"]),
            st.integers(min_value=1, max_value=20),
        ),
        min_size=1,
        max_size=30,
    ),
    other_order=st.randoms(),
)
def test_seq_ids_grow_with_ts_whatever_order_tables_flush(
    steps: list[tuple[int, str, int]], other_order: Random
) -> None:
    """Within one table's stream (commit ts non-decreasing, under 63 entries per ts) numbers
    grow and end before that ts's checkpoint; interleaving another table's shares at other
    ts, in any order, changes none of them."""
    ts = ts_at()
    plan = []
    for step, kind, count in steps:
        ts += step + 1
        plan.append((ts, count if kind == "txn" else 1))
    others = [(ts_at() - 1 - step * 7, 2) for step in range(len(plan))]  # a table behind
    other_order.shuffle(others)
    alone, mixed = binlog.SyntheticBinlog(), binlog.SyntheticBinlog()
    last = -1
    for (ts, count), other in zip(plan, others, strict=True):
        first = alone.allocate(ts, count)
        mixed.allocate(*other)
        assert mixed.allocate(ts, count) == first
        assert last < first
        last = first + count - 1
        assert last < binlog.seq_id(ts, binlog.CHECKPOINT_INDEX) < binlog.seq_id(ts + 1, 0)


@given(
    a=st.tuples(st.integers(min_value=0, max_value=1 << 50), st.integers(0, 63)),
    b=st.tuples(st.integers(min_value=0, max_value=1 << 50), st.integers(0, 63)),
)
def test_seq_id_orders_like_ts_then_index(a: tuple[int, int], b: tuple[int, int]) -> None:
    base = ts_at()
    first, second = binlog.seq_id(base + a[0], a[1]), binlog.seq_id(base + b[0], b[1])
    assert (first < second) == (a < b)
    assert (first == second) == (a == b)


def test_options_default_to_ten_seconds() -> None:
    assert DTSOptions().checkpoint_interval_in_sec == 10
