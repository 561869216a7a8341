"""The decoder ``tisink verify`` reads Open Protocol with: round trips, a property over
generated rows and batch bounds, and the records it refuses."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.codec.open.support import delete, encoder, events, insert, string_keyed, update
from tisink.codec.errors import MessageDecodeError
from tisink.codec.open.decoder import OpenDecoder
from tisink.codec.registry import get_protocol
from tisink.model import ColumnInfo, DDLEvent, DDLType, IndexInfo, RowChangedEvent, make_table

TABLE = make_table(
    "db",
    "tb",
    7,
    1,
    [
        ColumnInfo("id", "bigint", nullable=False),
        ColumnInfo("name", "varchar", "utf8mb4", "utf8mb4_bin", 40),
        ColumnInfo("n", "int", unsigned=True),
    ],
    [IndexInfo("primary", ("id",), True, True)],
)


def test_rows_ddl_and_resolved_events_round_trip() -> None:
    enc, dec = encoder(), OpenDecoder()
    table = string_keyed()
    rows = [
        insert(table, {"a": "x", "b": "1"}, ts=10),
        update(table, {"a": "x", "b": "1"}, {"a": "x", "b": "2"}, ts=11),
        delete(table, {"a": "x", "b": "2"}, ts=12),
    ]
    (record,) = enc.encode_rows(rows).records
    decoded = dec.decode(*record)
    assert [(m.kind, m.type, m.commit_ts) for m in decoded] == [
        ("DML", "INSERT", 10),
        ("DML", "UPDATE", 11),
        ("DML", "DELETE", 12),
    ]
    assert decoded[1].data == {"a": "x", "b": "2"} and decoded[1].old == {"a": "x", "b": "1"}
    assert decoded[2].data is None and decoded[2].old == {"a": "x", "b": "2"}
    assert all(m.table_schema and m.table_schema.handle_key == ("a",) for m in decoded)
    assert {m.table_name for m in decoded} == {"test.t"}
    ddl = enc.encode_ddl(DDLEvent(20, DDLType.TRUNCATE, "TRUNCATE TABLE t", table))
    assert ddl is not None
    ((kind, ddl_type, ts),) = [
        (m.kind, m.type, m.commit_ts) for m in dec.decode(ddl.key, ddl.value)
    ]
    assert (kind, ddl_type, ts) == ("DDL", "TRUNCATE", 20)
    resolved = enc.encode_checkpoint(30)
    assert [(m.kind, m.commit_ts) for m in dec.decode(resolved.key, resolved.value)] == [
        ("WATERMARK", 30)
    ]


def test_the_registry_builds_encoder_and_decoder() -> None:
    spec = get_protocol("open")
    assert spec.encoding_formats == ("json",)
    assert spec.schema_files("json") == {}
    assert spec.new_decoder is not None and not spec.sends_bootstrap


_HEAD = struct.pack(">Q", 1)


def _frame(*pairs: tuple[bytes, bytes]) -> tuple[bytes, bytes]:
    key = _HEAD + b"".join(struct.pack(">Q", len(k)) + k for k, _ in pairs)
    return key, b"".join(struct.pack(">Q", len(v)) + v for _, v in pairs)


@pytest.mark.parametrize(
    ("key", "value", "why"),
    [
        (None, b"", "null key"),
        (struct.pack(">Q", 2), b"", "version 1"),
        (b"\x00" * 7, b"", "version 1"),
        (_frame((b'{"ts":1,"t":3}', b""))[0], b"", "ends before"),
        (_frame((b'{"ts":1,"t":3}', b""))[0], bytes(8) + b"x", "after the last"),
        (*_frame((b'{"ts":1,"t":9}', b"{}")), "unknown event type"),
        (*_frame((b'{"ts":1,"t":1}', b'{"u":{"a":{"t":1,"v":1}},"d":{}}')), "both d and u"),
        (*_frame((b'{"ts":1,"t":1}', b'{"u":{"a":{"v":1}}}')), "lacks t or v"),
        (*_frame((b'{"ts":"1","t":3}', b"")), "integer ts"),
        (*_frame((b'{"ts":1,"t":3}', b"{}")), "resolved event with a value"),
        (*_frame((b'{"ts":1,"t":2}', b'{"q":1}')), "without q and t"),
    ],
)
def test_what_is_not_a_batch(key: bytes | None, value: bytes, why: str) -> None:
    with pytest.raises(MessageDecodeError, match=why):
        OpenDecoder().decode(key, value)


_NAMES = st.one_of(st.none(), st.text(max_size=12))
_ROW_OPS = st.sampled_from(["INSERT", "UPDATE", "DELETE"])


@st.composite
def _rows(draw: st.DrawFn) -> list[RowChangedEvent]:
    out = []
    ts = 1000
    for index in range(draw(st.integers(1, 40))):
        ts += draw(st.integers(0, 2))
        image = {
            "id": index,
            "name": draw(_NAMES),
            "n": draw(st.one_of(st.none(), st.integers(0, (1 << 32) - 1))),
        }
        other = {**image, "name": draw(_NAMES)}
        op = draw(_ROW_OPS)
        before = None if op == "INSERT" else other
        after = None if op == "DELETE" else image
        out.append(RowChangedEvent(ts - 1, ts, TABLE, before, after))
    return out


@settings(max_examples=60, deadline=None)
@given(
    rows=_rows(),
    batch=st.integers(1, 20),
    max_bytes=st.integers(400, 4000),
    compression=st.sampled_from(["none", "snappy"]),
)
def test_rows_come_back_in_order_within_the_bounds(
    rows: list[RowChangedEvent], batch: int, max_bytes: int, compression: str
) -> None:
    config = {"max_message_bytes": max_bytes, "large_message_handle_compression": compression}
    encoded = encoder(config, max_batch_size=batch).encode_rows(rows)
    decoder = OpenDecoder(compression)
    decoded = [m for record in encoded.records for m in decoder.decode(*record)]
    assert [(m.type, m.commit_ts) for m in decoded] == [(r.op.value, r.commit_ts) for r in rows]
    assert [m.data for m in decoded] == [r.after for r in rows]
    assert [m.old for m in decoded] == [r.before for r in rows]
    assert encoded.size == sum(len(k or b"") + len(v) for k, v in encoded.records)
    for key, value in encoded.records:
        count = len(events(key, value))
        assert count <= batch
        # a message of several events stays within max-message-bytes (with the record overhead)
        assert count == 1 or len(key or b"") + len(value) + 36 <= max_bytes
