"""Go's ``strconv.FormatFloat(f, 'f', -1, bits)`` for 32 and 64 bits.

``-1`` asks for the fewest digits that read back as the same float of that width, written
without an exponent. Python's ``repr`` already gives the shortest digits for 64 bits; for 32
bits the shortest digits are searched exactly, with fractions, against the float32 rounding
interval, because rounding through float64 first can pick a different value.
"""

from __future__ import annotations

import math
import struct
from decimal import Decimal
from fractions import Fraction

_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")


def _special(value: float) -> str | None:
    """Go's spelling of NaN and the infinities, or None for a finite value."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return None


def format_float64(value: float) -> str:
    """The shortest round-trip digits of a float64, positional (``1e+21`` -> ``1000...``)."""
    return _special(value) or _positional(Decimal(repr(value)))


def to_float32(value: float) -> float:
    """Round to the nearest float32 (infinity when out of range, as a Go conversion does)."""
    try:
        return _F32.unpack(_F32.pack(value))[0]
    except OverflowError:
        return float("inf") if value > 0 else float("-inf")


def format_float32(value: float) -> str:
    """The shortest digits that parse back (at 32 bits) to ``value`` rounded to float32."""
    single = to_float32(value)
    special = _special(single)
    if special is not None:
        return special
    if single == 0.0:
        return "-0" if str(single).startswith("-") else "0"
    exact = Fraction(single)
    low, high, inclusive = _rounding_interval(single)
    for digits in range(1, 10):
        best = _closest_in_interval(single, exact, digits, low, high, inclusive)
        if best is not None:
            return _positional(best)
    return _positional(Decimal(single))


def _rounding_interval(single: float) -> tuple[Fraction, Fraction, bool]:
    """The reals that round to ``single`` at 32 bits; the ends count when its mantissa is even."""
    bits = _U32.unpack(_F32.pack(abs(single)))[0]
    below = Fraction(_F32.unpack(_U32.pack(bits - 1))[0]) if bits > 1 else Fraction(0)
    above = Fraction(_F32.unpack(_U32.pack(bits + 1))[0]) if bits < 0x7F7FFFFF else None
    here = Fraction(abs(single))
    low = (below + here) / 2
    # Past the largest float32, the upper half-gap is as wide as the one below it.
    high = (here + above) / 2 if above is not None else here + (here - below) / 2
    sign = -1 if single < 0 else 1
    low, high = (low, high) if sign > 0 else (-high, -low)
    return low, high, bits % 2 == 0


def _closest_in_interval(
    single: float, exact: Fraction, digits: int, low: Fraction, high: Fraction, inclusive: bool
) -> Decimal | None:
    """Among decimals with ``digits`` significant digits, the closest to ``exact`` that lies in
    the rounding interval, or None."""
    nearest = Decimal(f"{single:.{digits - 1}e}")
    step = Decimal((0, (1,), nearest.as_tuple().exponent))
    candidates = [nearest, nearest - step, nearest + step]
    inside = [c for c in candidates if c and _within(Fraction(c), low, high, inclusive)]
    if not inside:
        return None
    return min(inside, key=lambda c: abs(Fraction(c) - exact))


def _within(value: Fraction, low: Fraction, high: Fraction, inclusive: bool) -> bool:
    return low <= value <= high if inclusive else low < value < high


def _positional(number: Decimal) -> str:
    """Plain digits, no exponent, no trailing fraction zeros; ``-0`` stays ``-0`` as in Go."""
    return format(number.normalize(), "f")
