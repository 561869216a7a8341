"""The template-built transaction entries (``frames``) against the generic ``entries.item`` of
``entries.header``: random commit and start ts, seqIds across every varint length boundary
and first-byte carry, table names and DML events, one frames object reused throughout (its
caches) and fresh ones; and ``encode_rows``' one-Envelope path against the generic items
merged and sliced by ``entries.envelopes``."""

from __future__ import annotations

import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.codec.dts.tencent.support import example_row, example_table, new_encoder, ts_at
from tisink.codec.dts import binlog
from tisink.codec.dts.tencent import columns, entries
from tisink.codec.dts.tencent.columns import TableCodec
from tisink.codec.dts.tencent.enums import DMLType, MessageType
from tisink.codec.dts.tencent.frames import TransactionFrames
from tisink.codec.dts.tencent.wire import field_text, varint
from tisink.model.events import RowChangedEvent
from tisink.model.tso import compose_ts

BOUNDARIES = [(1 << (7 * k)) + d for k in range(1, 10) for d in range(-3, 2)]
SEQS = (
    st.integers(0, (1 << 64) - 80)
    | st.sampled_from(BOUNDARIES)
    | st.integers(1, 1 << 57).map(lambda n: n << 7 | 0x7C)  # first byte near its carry
    | st.integers(0, 300)
)
TS = (
    st.integers(0, (1 << 64) - 1)
    | st.integers(0, 10**6)
    | st.builds(compose_ts, st.integers(1_500_000_000_000, 2_100_000_000_000), st.integers(0, 5))
)
START_TS = st.integers(0, (1 << 64) - 1) | st.integers(0, 1000)
NAMES = st.tuples(st.text(max_size=20), st.text(max_size=40)).map(
    lambda names: field_text(9, names[0]) + field_text(10, names[1])
)
BODIES = st.lists(st.binary(max_size=300), min_size=1, max_size=4) | st.sampled_from(
    [[b"\x08\x00", b"x" * 16_370], [b"x" * 20_000, b"y" * 300_000]]  # lengths past 2**14
)
SHARED = TransactionFrames()


def generic_items(ts: int, start_ts: int, seq: int, runs: list[tuple[bytes, bytes]]) -> list:
    time_field, gtid = entries.timestamp_field(ts), entries.gtid_field(ts)
    header = entries.header
    out = [
        entries.item(header(MessageType.BEGIN, time_field, varint(seq), gtid, b""), entries.BEGIN)
    ]
    for offset, (names, body) in enumerate(runs, start=1):
        dml = header(MessageType.DML, time_field, varint(seq + offset), gtid, names)
        out.append(entries.item(dml, entries.dml_event(body)))
    commit = header(MessageType.COMMIT, time_field, varint(seq + len(runs) + 1), gtid, b"")
    out.append(entries.item(commit, entries.commit_event(start_ts)))
    return out


@settings(deadline=None)
@given(TS, START_TS, SEQS, st.lists(st.tuples(NAMES, st.binary(max_size=300)), max_size=3))
def test_items_equal_the_generic_entries(
    ts: int, start_ts: int, seq: int, runs: list[tuple[bytes, bytes]]
) -> None:
    expected = generic_items(ts, start_ts, seq, runs)
    assert SHARED.items(ts, start_ts, seq, runs) == expected
    assert TransactionFrames().items(ts, start_ts, seq, runs) == expected


@settings(deadline=None)
@given(TS, START_TS, SEQS, NAMES, BODIES, st.integers(16, 2000) | st.just(1 << 20))
def test_single_envelope_equals_the_generic_one(
    ts: int, start_ts: int, seq: int, names: bytes, body: list[bytes], limit: int
) -> None:
    data = b"".join(generic_items(ts, start_ts, seq, [(names, b"".join(body))]))
    for frames in (SHARED, TransactionFrames()):
        parts = frames.single(ts, start_ts, seq, (names, body, sum(map(len, body))), limit)
        carries = seq < 0x80 or seq & 0x7F > 0x7D
        if len(data) > limit or carries:
            assert parts is None
        else:
            assert parts is not None
            assert b"".join(parts) == entries.whole(data)


@pytest.mark.parametrize(("ts", "start_ts"), [(1, 10**30), (10**30, 1), (10**30, 10**30)])
def test_numbers_longer_than_a_tso_take_the_generic_fields(ts: int, start_ts: int) -> None:
    """A commit or start ts of more digits than a TSO has still gets its GTID and COMMIT."""
    runs = [(b"", b"\x08\x00")]
    expected = generic_items(ts, start_ts, 1000, runs)
    assert TransactionFrames().items(ts, start_ts, 1000, runs) == expected
    assert TransactionFrames().single(ts, start_ts, 1000, (b"", [b"\x08\x00"], 2), 1 << 20) is None


@settings(max_examples=100, deadline=None)
@given(
    st.integers(1, 6),
    st.sampled_from([DMLType.INSERT, DMLType.UPDATE, DMLType.DELETE]),
    st.integers(0, 40) | st.integers(1000, 200_000),
    st.integers(0, 3),
    st.integers(200, 3000) | st.just(1 << 20),
)
def test_one_run_shares_equal_the_generic_envelopes(
    count: int, kind: DMLType, ms: int, shares_before: int, max_message_bytes: int
) -> None:
    """A share of one table and DML type (``encode_rows``' one-Envelope path, or its fallback
    when the Entries do not fit) against the generic items, merged and sliced as always."""
    table = example_table()
    ts = ts_at(ms, logical=ms % 7)
    image = example_row()
    before, after = (
        (None if kind is DMLType.INSERT else image),
        (None if kind is DMLType.DELETE else image),
    )
    rows = [RowChangedEvent(ts - 3, ts, table, before, after) for _ in range(count)]
    encoder = new_encoder(max_message_bytes=max_message_bytes)
    for _ in range(shares_before):  # earlier shares at this ts move the first seqId on
        encoder.encode_rows(rows[:1])
    codec = TableCodec(table, datetime.UTC)
    body, _size = codec.run(kind, rows)
    seq = binlog.seq_id(ts, 3 * shares_before)
    items = generic_items(ts, ts - 3, seq, [(codec.names_field, b"".join(body))])
    expected = entries.envelopes(items, encoder.entries_limit)
    encoded = encoder.encode_rows(rows)
    assert [value for _key, value in encoded.records] == expected
    assert encoded.size == sum(map(len, expected))


def test_each_dml_type_compiles_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Renderers are compiled on a type's first row, then reused, even by a run of rows."""
    table = example_table()
    codec = TableCodec(table, datetime.UTC)
    compiled = []
    original = columns.compile_change

    def counting(kind: DMLType, *args: object) -> object:
        compiled.append(kind)
        return original(kind, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(columns, "compile_change", counting)
    rows = [RowChangedEvent(1, 2, table, None, example_row(i)) for i in range(5)]
    for _ in range(3):
        codec.run(DMLType.INSERT, rows)
        codec.run(DMLType.INSERT, rows[:1])
    codec.run(DMLType.DELETE, [RowChangedEvent(1, 2, table, example_row(), None)])
    assert compiled == [DMLType.INSERT, DMLType.DELETE]
