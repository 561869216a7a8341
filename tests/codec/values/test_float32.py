"""``float32_text`` (exact integer algorithm, short-decimal fast path) equals the former search.

The former implementation tried 1..9 digits with exact float32 parses (``float32_former``);
the new one must give the same text for every input. Checked over random float32 bit patterns
and doubles (hypothesis), short decimals (the fast path, also exhaustively over two decades
against the exact algorithm), and exhaustively over the edges:
every power of two and its neighbours, the first and last subnormals, the largest finite
values and the overflow boundary, the float32s around every power of ten (where the digit
count of the text changes; Go's 'f' format never switches to an exponent), and where the
spacing reaches 1 and 2 (2**23, 2**24).
"""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.codec.values.float32_former import former_float32_text
from tisink.codec.values.floats import _float32_text, float32_text

_BITS = struct.Struct("<I")
_F32 = struct.Struct("<f")
MAX_FINITE_BITS = 0x7F7FFFFF


def _float(bits: int) -> float:
    return _F32.unpack(_BITS.pack(bits))[0]


def _bits(f: float) -> int:
    return _BITS.unpack(_F32.pack(f))[0]


def _same(values: list[float]) -> None:
    wrong = [(v, former_float32_text(v), _float32_text(v)) for v in values]
    wrong = [w for w in wrong if w[1] != w[2]]
    assert not wrong, wrong[:5]


def _both_signs(bit_patterns: set[int]) -> list[float]:
    out = []
    for bits in sorted(bit_patterns):
        if 0 <= bits <= MAX_FINITE_BITS:
            out += [_float(bits), _float(bits | 1 << 31)]
    return out


@settings(deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_every_bit_pattern_as_before(bits: int) -> None:
    f = _float(bits)
    assert float32_text(f) == _float32_text(f) == former_float32_text(f)


@settings(deadline=None)
@given(st.floats(allow_nan=False))
def test_any_double_as_before(v: float) -> None:
    """Doubles round to float32 first (and overflow to infinity) exactly as before."""
    assert float32_text(v) == _float32_text(v) == former_float32_text(v)


@settings(deadline=None)
@given(
    st.integers(1, 99_999_999),
    st.integers(-50, 40),
    st.booleans(),
)
def test_short_decimals_as_before(digits: int, exponent: int, negative: bool) -> None:
    """Values typed as decimals of up to 8 digits: the fast path's inputs (up to 6) and those
    just beyond it."""
    v = float(f"{'-' if negative else ''}{digits}e{exponent}")
    assert float32_text(v) == _float32_text(v) == former_float32_text(v)


@pytest.mark.parametrize(
    ("first", "count", "decimals"),
    [(100_000, 900_000, 2), (0, 100_000, 5)],
    ids=["1000.00-9999.99", "0.00000-0.99999"],
)
def test_every_short_decimal_of_a_decade(first: int, count: int, decimals: int) -> None:
    """The fast path, exhaustively where it is used most (the demo's FLOAT values are
    ``dddd.dd``; vector elements are below 1), against the exact algorithm."""
    scale = 10**decimals
    values = [n / scale for n in range(first, first + count)]
    wrong = [v for v in values if float32_text(v) != _float32_text(v)]
    assert not wrong, wrong[:5]
    wrong = [v for v in values[::997] if float32_text(-v) != _float32_text(-v)]
    assert not wrong, wrong[:5]


def test_powers_of_two_and_their_neighbours() -> None:
    bits = {(e << 23) + d for e in range(256) for d in range(-4, 5)}
    _same(_both_signs(bits))


def test_subnormals_at_both_ends() -> None:
    bits = set(range(0, 4096)) | set(range(0x800000 - 4096, 0x800000 + 16))
    _same(_both_signs(bits))


def test_largest_finite_values_and_overflow() -> None:
    _same(_both_signs(set(range(MAX_FINITE_BITS - 4096, MAX_FINITE_BITS + 1))))
    boundary = 3.4028235677973366e38  # 2**128 - 2**103: from here on, float32 infinity
    below = struct.unpack(
        "<d", struct.pack("<Q", struct.unpack("<Q", struct.pack("<d", boundary))[0] - 1)
    )[0]
    _same([boundary, -boundary, below, -below, 1e39, float("inf"), float("-inf")])
    assert float32_text(below) == "340282350000000000000000000000000000000"
    assert float32_text(boundary) == "+Inf"


def test_around_every_power_of_ten() -> None:
    bits: set[int] = set()
    for exponent in range(-45, 39):
        center = _bits(float(f"1e{exponent}"))
        bits.update(range(center - 64, center + 65))
    _same(_both_signs(bits))


@pytest.mark.parametrize("power", [23, 24, 25])
def test_where_the_spacing_reaches_whole_numbers(power: int) -> None:
    center = _bits(float(2**power))
    _same(_both_signs(set(range(center - 2048, center + 2048))))


def test_first_and_last_mantissas_of_every_exponent() -> None:
    bits = {(e << 23) + m for e in range(255) for m in (*range(8), *range(0x7FFFF8, 0x800000))}
    _same(_both_signs(bits))


def test_memoised_text_is_the_same() -> None:
    for v in (1234.56, -0.001, 3.4e38, 1e-45):
        assert float32_text(v) == float32_text(v) == former_float32_text(v)
