"""Value rendering helpers against Go/TiDB vectors and exact reference algorithms."""

from __future__ import annotations

import datetime
import json
import math
import struct
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.codec.errors import CodecError
from tisink.codec.values import (
    binary_bytes,
    bit_default_number,
    enum_index,
    enum_indexes,
    float32_text,
    float64_text,
    json_text,
    set_bitmask,
    set_mask,
    set_names,
    timestamp_text,
    vector_text,
    zone_for,
)
from tisink.core.errors import ConfigError
from tisink.model import ColumnInfo

# --- float32: an exact, independent model of Go's FormatFloat(x, 'f', -1, 32) ----------------


def _f32_bits(f: float) -> int:
    return struct.unpack("<I", struct.pack("<f", f))[0]


def _f32_from_bits(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def _reference_float32_text(f: float) -> str:
    """Shortest decimal inside f's float32 rounding interval (closest to f among the shortest,
    ties to an even last digit), found with exact rational arithmetic."""
    negative = f < 0
    f = abs(f)
    bits = _f32_bits(f)
    exact = Fraction(f)
    below = Fraction(_f32_from_bits(bits - 1)) if bits > 0 else -exact
    next_up = _f32_from_bits(bits + 1)
    # Past the largest float32 the spacing continues as if the exponent range did.
    above = Fraction(next_up) if math.isfinite(next_up) else 2 * exact - below
    low, high = (below + exact) / 2, (exact + above) / 2
    inclusive = bits % 2 == 0  # ties-to-even: an even mantissa owns its interval ends
    top = math.floor(math.log10(f)) + 1
    for digits in range(1, 12):
        unit = Fraction(10) ** (top - digits)
        best, best_distance = None, Fraction(0)
        for k in (math.floor(exact / unit), math.ceil(exact / unit)):
            value = k * unit
            inside = low <= value <= high if inclusive else low < value < high
            if not inside:
                continue
            # Closest wins; an exact tie goes to the even last digit, as Go's rounding does.
            distance = abs(value - exact)
            if (
                best is None
                or distance < best_distance
                or (distance == best_distance and k % 2 == 0)
            ):
                best, best_distance = value, distance
        if best is not None:
            text = format(Decimal(best.numerator) / Decimal(best.denominator), "f")
            text = text.rstrip("0").rstrip(".") if "." in text else text
            return ("-" if negative else "") + text
    raise AssertionError(f)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (90.5, "90.5"),
        (95, "95"),
        (3.14, "3.14"),
        (2.71, "2.71"),
        (1e20, "100000000000000000000"),
        (0.1, "0.1"),
        (1 / 3, "0.33333334"),
        (16777217.0, "16777216"),
        (1e-7, "0.0000001"),
        (-0.0, "-0"),
        (0.0, "0"),
        (float("inf"), "+Inf"),
        (float("-inf"), "-Inf"),
        (float("nan"), "NaN"),
        (1e39, "+Inf"),
    ],
)
def test_float32_text_vectors(value: float, text: str) -> None:
    assert float32_text(value) == text


@settings(deadline=None)
@given(st.floats(width=32, allow_nan=False, allow_infinity=False).filter(lambda f: f != 0))
def test_float32_text_is_go_shortest(f: float) -> None:
    text = float32_text(f)
    assert "e" not in text
    assert text == _reference_float32_text(f)


def test_float32_text_at_powers_of_two() -> None:
    for exponent in range(-149, 128, 7):
        f = math.ldexp(1.0, exponent)
        assert float32_text(f) == _reference_float32_text(f)


@settings(deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_float64_text_round_trips_without_exponent(f: float) -> None:
    text = float64_text(f)
    assert "e" not in text and "E" not in text
    assert float(text) == f
    digits = text.lstrip("-").replace(".", "").strip("0")
    assert len(digits) <= 17


def test_float64_text_vectors() -> None:
    assert float64_text(2.71) == "2.71"
    assert float64_text(1e20) == "100000000000000000000"
    assert float64_text(100.0) == "100"
    assert float64_text(-1.5e-7) == "-0.00000015"


def test_vector_text() -> None:
    assert vector_text([1, 2, 3, 4, 5]) == "[1,2,3,4,5]"
    assert vector_text([0.1, -2.5]) == "[0.1,-2.5]"
    assert vector_text([]) == "[]"


# --- JSON column text ------------------------------------------------------------------------


def test_json_text_tidb_style() -> None:
    assert json_text({"key2": "value2", "key1": "value1"}) == (
        '{"key1": "value1", "key2": "value2"}'
    )
    assert json_text([1, 1.0, None, True, False, "x"]) == '[1, 1.0, null, true, false, "x"]'
    assert json_text(1.5e300) == "1.5e300"
    assert json_text(1e15) == "1e15"
    assert json_text(1e-16) == "1e-16"
    assert json_text(123456.0) == "123456.0"
    assert json_text(18446744073709551615) == "18446744073709551615"
    assert json_text(18446744073709551616) == "1.8446744073709552e19"
    assert json_text({"b": 1, "B": 2, "é": 3, "a": 4}) == '{"B": 2, "a": 4, "b": 1, "é": 3}'
    assert json_text("<&>\u2028\x01") == '"<&>\\u2028\\u0001"'


_json_scalars = st.none() | st.booleans() | st.integers(-(1 << 63), (1 << 64) - 1) | st.text()
_json_values = st.recursive(
    _json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(deadline=None)
@given(_json_values)
def test_json_text_matches_mysql_style_dump(value: object) -> None:
    expected = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(", ", ": "))
    expected = expected.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    assert json_text(value) == expected
    assert json.loads(json_text(value)) == value


# --- time zones ------------------------------------------------------------------------------


def test_zone_for_tz_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "UTC")
    assert zone_for(None) == ("UTC", datetime.UTC)
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    name, tz = zone_for(None)
    assert name == "Asia/Shanghai"
    assert datetime.datetime(2024, 1, 1, tzinfo=tz).utcoffset() == datetime.timedelta(hours=8)
    monkeypatch.setenv("TZ", "Not/AZone")
    assert zone_for(None)[0] == "UTC"
    assert zone_for("Europe/Berlin")[0] == "Europe/Berlin"
    with pytest.raises(ConfigError, match="Not/AZone"):
        zone_for("Not/AZone")


def test_timestamp_text() -> None:
    shanghai = zone_for("Asia/Shanghai")[1]
    assert timestamp_text("2020-02-20 10:20:20", shanghai) == "2020-02-20 18:20:20"
    assert timestamp_text("2020-02-20 20:20:20.4612", shanghai) == "2020-02-21 04:20:20.4612"
    assert timestamp_text("2024-03-11 08:51:01.461270", datetime.UTC) == (
        "2024-03-11 08:51:01.461270"
    )
    new_york = zone_for("America/New_York")[1]
    assert timestamp_text("2024-07-01 12:00:00.5", new_york) == "2024-07-01 08:00:00.5"
    assert timestamp_text("0000-00-00 00:00:00", shanghai) == "0000-00-00 00:00:00"
    with pytest.raises(CodecError, match="bad timestamp"):
        timestamp_text("2020-02-20T10:20:20", shanghai)


# --- enum, set, bit, binary ------------------------------------------------------------------

ENUM = ColumnInfo("e", "enum", elements=("a", "b", "c"))


def test_enum_and_set() -> None:
    assert [enum_index(ENUM, m) for m in ("a", "b", "c", "")] == [1, 2, 3, 0]
    assert set_bitmask(ENUM, ["a", "b"]) == 3
    assert set_bitmask(ENUM, ["b"]) == 2
    assert set_bitmask(ENUM, []) == 0
    assert set_bitmask(ENUM, "a,c") == 5
    with pytest.raises(CodecError, match="'d' is not a member"):
        enum_index(ENUM, "d")
    with pytest.raises(CodecError, match="'e'"):
        set_bitmask(ENUM, ["a", "x"])


SET = ColumnInfo("s", "set", elements=("a", "b", "a", "c"))


def test_member_lookups_built_once_agree_with_enum_index_and_set_bitmask() -> None:
    assert enum_indexes(SET) == {"": 0, "a": 1, "b": 2, "c": 4}
    mask, names = set_mask(SET), set_names(SET)
    for value in (["a"], ["c", "b"], ["a", "a"], [], "b,c", ""):
        assert mask(value) == set_bitmask(SET, value)
    assert names(["c", "a", "b"]) == names("b,c,a") == "a,b,c"
    assert names([]) == ""
    with pytest.raises(CodecError, match="'x' is not a member"):
        mask(["a", "x"])
    with pytest.raises(TypeError, match="want a list of members, got int"):
        names(3)


def test_bit_default_number() -> None:
    assert bit_default_number(None) is None
    assert bit_default_number(682) == 682
    assert bit_default_number("b'1010101010'") == 682
    assert bit_default_number("0b1010101010") == 682
    assert bit_default_number("0x2aa") == 682
    assert bit_default_number("\x02\xaa") == 682
    with pytest.raises(CodecError):
        bit_default_number(1.5)


def test_binary_bytes() -> None:
    fixed = ColumnInfo("b", "binary", length=4)
    assert binary_bytes(fixed, "QQ==") == b"A\x00\x00\x00"
    assert binary_bytes(ColumnInfo("v", "varbinary", length=4), "QQ==") == b"A"
    with pytest.raises(CodecError, match="do not fit binary"):
        binary_bytes(fixed, "QUJDREU=")
    with pytest.raises(CodecError, match=r"'b'.*base64"):
        binary_bytes(fixed, "not base64!")
