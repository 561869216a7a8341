"""json-iterator's text (TiCDC's JSON writer) against rules written down from its source."""

from __future__ import annotations

import math
import re
import struct

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tisink.codec.debezium.jsonwriter import double, dumps, float32_json, float64_json, single
from tisink.codec.errors import CodecError

_HEX = "0123456789abcdef"
_F_FORM = re.compile(r"-?\d+(\.\d+)?")
_E_FORM = re.compile(r"-?\d(\.\d+)?e[-+](\d+)")


def _jsoniter_string(s: str) -> bytes:
    """json-iterator's ``writeStringSlowPath`` with EscapeHTML off, rune by rune."""
    out = ['"']
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch in "\n\r\t":
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch])
        elif ord(ch) < 0x20:
            out.append("\\u00" + _HEX[ord(ch) >> 4] + _HEX[ord(ch) & 0xF])
        elif 0xD800 <= ord(ch) <= 0xDFFF:
            out.append("\ufffd")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out).encode()


@given(st.text())
def test_strings_as_json_iterator_writes_them(s: str) -> None:
    assert dumps(s) == _jsoniter_string(s)
    assert dumps({s: [s]}) == b"{" + _jsoniter_string(s) + b":[" + _jsoniter_string(s) + b"]}"


def test_escaped_backslash_before_b_or_f_is_not_rewritten() -> None:
    assert dumps("\\b\\f\b") == b'"\\\\b\\\\f\\u0008"'


def _significant(text: str) -> str:
    """The significant digits of a decimal text, without leading/trailing zeros."""
    mantissa = text.lstrip("-").split("e")[0].replace(".", "")
    return mantissa.strip("0") or "0"


finite = st.floats(allow_nan=False, allow_infinity=False)


@given(finite)
def test_float64_json_follows_write_float64(v: float) -> None:
    text = float64_json(v)
    assert float(text) == v and math.copysign(1, float(text)) == math.copysign(1, v)
    # shortest digits: the same significant digits as Python's shortest repr
    assert _significant(text) == _significant(repr(v))
    e_form = v != 0 and (abs(v) < 1e-6 or abs(v) >= 1e21)
    match = (_E_FORM if e_form else _F_FORM).fullmatch(text)
    assert match is not None, text
    if e_form:
        exponent = match.group(2)
        # Go writes two exponent digits at least; json-iterator shortens only "e-0d"
        assert len(exponent) >= 2 or text.split("e")[1].startswith("-")
        assert not text.split("e")[1].startswith("-0")


@given(finite)
def test_double_fast_path_writes_the_same_text_through_orjson(v: float) -> None:
    assert orjson.dumps(double(v)) == float64_json(v).encode()


@given(st.floats(width=32, allow_nan=False, allow_infinity=False))
def test_float32_json_round_trips_to_the_float32(v: float) -> None:
    text = float32_json(v)
    assert struct.unpack("<f", struct.pack("<f", float(text)))[0] == v
    e_form = v != 0 and (abs(v) < struct.unpack("<f", struct.pack("<f", 1e-6))[0] or abs(v) >= 1e21)
    assert (_E_FORM if e_form else _F_FORM).fullmatch(text), text
    assert orjson.dumps(single(v)) == text.encode()


@pytest.mark.parametrize(
    ("v", "text"), [(1e-7, "1e-7"), (1e21, "1e+21"), (12345.12345, "12345.123"), (1e-45, "1e-45")]
)
def test_float32_examples(v: float, text: str) -> None:
    assert float32_json(v) == text


@pytest.mark.parametrize("v", [math.nan, math.inf, -math.inf])
def test_non_finite_floats_are_errors(v: float) -> None:
    with pytest.raises(CodecError):
        float64_json(v)
    with pytest.raises(CodecError):
        float32_json(v)
