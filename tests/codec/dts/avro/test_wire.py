"""The DTS Avro wire helpers against fastavro's own encoding of the same values."""

from __future__ import annotations

from io import BytesIO
from typing import Any

import fastavro
from hypothesis import given
from hypothesis import strategies as st

from tisink.codec.dts.avro.source import position, position_bytes
from tisink.codec.dts.avro.wire import RecordIds, blob_bytes, text_bytes

LONG = st.integers(-(1 << 63), (1 << 63) - 1)


def _fastavro(schema: str, value: Any) -> bytes:
    buffer = BytesIO()
    fastavro.schemaless_writer(buffer, fastavro.parse_schema(schema), value)
    return buffer.getvalue()


@given(st.lists(LONG | st.integers(0, 1 << 20), max_size=30), st.integers(0, 70))
def test_record_ids_encode_longs(values: list[int], run: int) -> None:
    """Any order of values, and runs of consecutive ids (which share the cached part)."""
    ids = RecordIds()
    for value in values:
        for n in range(value, value + run if 0 <= value < (1 << 62) else value + 1):
            assert ids(n) == _fastavro("long", n)


@given(st.text(max_size=200), st.binary(max_size=200))
def test_text_and_blob_bytes(text: str, blob: bytes) -> None:
    assert text_bytes(text) == _fastavro("string", text)
    assert blob_bytes(blob) == _fastavro("bytes", blob)


@given(st.integers(0, (1 << 64) - 1))
def test_position_bytes(seq: int) -> None:
    assert position_bytes(seq) == _fastavro("string", position(seq))
