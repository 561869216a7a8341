"""Avro primitives against fastavro's own encoding of the same values."""

from __future__ import annotations

import io

import pytest
from fastavro import parse_schema, schemaless_writer
from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.codec.simple.avro.wire import (
    array_bytes,
    as_int64,
    double_bytes,
    float_bytes,
    long_bytes,
    str_bytes,
)

INT64 = st.integers(-(1 << 63), (1 << 63) - 1)


def _fastavro(schema: object, datum: object) -> bytes:
    out = io.BytesIO()
    schemaless_writer(out, parse_schema(schema), datum)
    return out.getvalue()


@settings(deadline=None)
@given(n=INT64 | st.integers(-20000, 20000))
def test_long_matches_fastavro(n: int) -> None:
    assert long_bytes(n) == _fastavro("long", n)


@pytest.mark.parametrize("n", [1 << 63, -(1 << 63) - 1, 1 << 70])
def test_long_out_of_range(n: int) -> None:
    with pytest.raises(OverflowError):
        long_bytes(n)


@settings(max_examples=100, deadline=None)
@given(text=st.text(st.characters(exclude_categories=("Cs",))))
def test_string_matches_fastavro(text: str) -> None:
    assert str_bytes(text) == _fastavro("string", text)


@settings(max_examples=100, deadline=None)
@given(x=st.floats(width=32, allow_nan=False))
def test_float_and_double_match_fastavro(x: float) -> None:
    assert float_bytes(x) == _fastavro("float", x)
    assert double_bytes(x) == _fastavro("double", x)


@settings(max_examples=50, deadline=None)
@given(items=st.lists(st.text(max_size=5), max_size=5))
def test_array_matches_fastavro(items: list[str]) -> None:
    encoded = array_bytes([str_bytes(i) for i in items])
    assert encoded == _fastavro({"type": "array", "items": "string"}, items)


def test_uint64_reinterpreted_like_go() -> None:
    assert as_int64((1 << 64) - 1) == -1
    assert as_int64(1 << 63) == -(1 << 63)
    assert as_int64((1 << 63) - 1) == (1 << 63) - 1
