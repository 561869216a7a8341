"""The DTS Avro wire helpers against fastavro's own encoding of the same values."""

from __future__ import annotations

from io import BytesIO
from typing import Any

import fastavro
from hypothesis import given
from hypothesis import strategies as st

from tisink.codec.dts import binlog
from tisink.codec.dts.avro.source import (
    gtid_text,
    number_text,
    position,
    position_bytes,
)
from tisink.codec.dts.avro.wire import blob_bytes, id_run, text_bytes, time_bytes

LONG = st.integers(-(1 << 63), (1 << 63) - 1)


def _fastavro(schema: str, value: Any) -> bytes:
    buffer = BytesIO()
    fastavro.schemaless_writer(buffer, fastavro.parse_schema(schema), value)
    return buffer.getvalue()


SEQ = st.integers(0, (1 << 63) - 200) | st.integers(0, 300)


@given(SEQ | st.sampled_from([(1 << (7 * k - 1)) - d for k in range(1, 10) for d in range(9)]))
def test_record_id_runs_are_fastavros_longs(first: int) -> None:
    """Runs of consecutive ids (which share all but the first byte until it carries), across
    every varint length boundary."""
    for count in (1, 2, 3, 12, 70):
        heads, rest = id_run(first, count)
        assert len(heads) == count
        expected = [_fastavro("long", n) for n in range(first, first + count)]
        assert [head + rest for head in heads] == expected


def test_record_ids_past_int64_keep_their_bytes() -> None:
    """Ids from 2**63 (commit ts after mid 2037) overflow an Avro long; they are written as the
    64-bit varint of the doubled id, as before, not refused."""
    for first in ((1 << 63) - 2, (1 << 63) - 60):
        heads, rest = id_run(first, 64)
        assert [head + rest for head in heads] == [_varint(2 * n) for n in range(first, first + 64)]


def _varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


@given(st.text(max_size=200), st.binary(max_size=200))
def test_text_and_blob_bytes(text: str, blob: bytes) -> None:
    assert text_bytes(text) == _fastavro("string", text)
    assert blob_bytes(blob) == _fastavro("bytes", blob)


@given(st.integers(0, (1 << 64) - 1))
def test_position_bytes(seq: int) -> None:
    assert position_bytes(seq) == _fastavro("string", position(seq))


@given(st.integers(0, (1 << 64) - 1) | st.integers(0, 10**6) | st.integers(10**22, 10**30))
def test_numbers_and_gtids_are_avro_strings(ts: int) -> None:
    assert number_text(ts) == _fastavro("string", binlog.transaction_id(ts))
    assert gtid_text(ts) == _fastavro("string", binlog.gtid(ts))


@given(LONG)
def test_times_are_fastavros_longs(value: int) -> None:
    assert time_bytes(value) == _fastavro("long", value)
