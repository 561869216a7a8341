"""Go's float formatting and TiDB's JSON text, cross-checked with known TiCDC/TiDB outputs."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.codec.values import float32_text as format_float32
from tisink.codec.values import float64_text as format_float64
from tisink.codec.values import json_text as tidb_json_text
from tisink.codec.values import to_float32


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "null"),
        (True, "true"),
        (False, "false"),
        (-12, "-12"),
        (18446744073709551615, "18446744073709551615"),
        (18446744073709551616, "1.8446744073709552e19"),
        (1.0, "1.0"),
        (-2.5, "-2.5"),
        (123456.789, "123456.789"),
        (1e15, "1e15"),
        (1.5e300, "1.5e300"),
        (1e-15, "0.000000000000001"),
        (1e-16, "1e-16"),
        ("<a&b>", '"<a&b>"'),
        ('q"\\\n\t\b\f\x01\u2028é', '"q\\"\\\\\\n\\t\\b\\f\\u0001\\u2028é"'),
        ([], "[]"),
        ({}, "{}"),
        ({"b": {"y": 1, "x": [None]}, "a": "v"}, '{"a": "v", "b": {"x": [null], "y": 1}}'),
        ({"é": 1, "z": 2, "Z": 3}, '{"Z": 3, "z": 2, "é": 1}'),
    ],
)
def test_tidb_json_text(value: Any, text: str):
    assert tidb_json_text(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (3.4028234663852886e38, "340282350000000000000000000000000000000"),
        (1.401298464324817e-45, "0.000000000000000000000000000000000000000000001"),
        (1.1754943508222875e-38, "0.000000000000000000000000000000000000011754944"),
        (7.038531e-26, "0.000000000000000000000000070385313"),
        (123456789.0, "123456790"),
        (-1.5, "-1.5"),
        (1e39, "+Inf"),
        (float("-inf"), "-Inf"),
        (float("nan"), "NaN"),
    ],
)
def test_float32_known_values(value: float, text: str):
    assert format_float32(value) == text


def _digits(text: str) -> int:
    return len(Decimal(text).normalize().as_tuple().digits)


finite_floats = st.floats(allow_nan=False, allow_infinity=False)


@settings(deadline=None)
@given(value=st.floats(min_value=-3.4e38, max_value=3.4e38, allow_nan=False))
def test_float32_is_shortest_round_trip(value: float):
    single = to_float32(value)
    text = format_float32(value)
    assert "e" not in text and "E" not in text
    assert to_float32(float(text)) == single
    if single != 0:
        shorter = _digits(text) - 1
        if shorter >= 1:
            assert to_float32(float(f"{single:.{shorter - 1}e}")) != single


@settings(deadline=None)
@given(value=finite_floats)
def test_float64_is_exact_round_trip(value: float):
    text = format_float64(value)
    assert "e" not in text and "E" not in text
    assert float(text) == value
    assert math.copysign(1, float(text)) == math.copysign(1, value)
