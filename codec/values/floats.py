"""Go's float formatting for float/double/vector columns (``strconv.FormatFloat`` 'f', -1).

float32 needs care: the shortest digits are those that round-trip to the *float32*, found by
trying 1..9 significant digits with an exact decimal -> float32 rounding (a plain ``float()``
would round twice), plus Go's choice at power-of-two boundaries where the spacing below halves.
"""

from __future__ import annotations

import struct
from decimal import Decimal

_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")


def float64_text(v: float) -> str:
    """Go's ``FormatFloat(v, 'f', -1, 64)``: the shortest round-trip digits, never an exponent."""
    text = repr(v)
    if "e" in text or "n" in text:
        return _GO_SPECIALS.get(text) or format(Decimal(text), "f")
    return text[:-2] if text.endswith(".0") else text


_GO_SPECIALS = {"inf": "+Inf", "-inf": "-Inf", "nan": "NaN"}


def to_float32(v: float) -> float:
    """Round a double to the nearest float32 (as Go's ``float32(v)``), overflowing to infinity."""
    try:
        return _F32.unpack(_F32.pack(v))[0]
    except OverflowError:
        return float("inf") if v > 0 else float("-inf")


_F32_TEXT: dict[float, str] = {}
_F32_TEXT_LIMIT = 1 << 16


def float32_text(v: float) -> str:
    """Go's ``FormatFloat(float64(float32(v)), 'f', -1, 32)``: shortest float32 digits, no
    exponent. Memoised per input value (zero is excluded: 0.0 and -0.0 are equal keys)."""
    text = _F32_TEXT.get(v)
    if text is None:
        text = _float32_text(v)
        if v and v == v and len(_F32_TEXT) < _F32_TEXT_LIMIT:
            _F32_TEXT[v] = text
    return text


def _float32_text(v: float) -> str:
    f = to_float32(v)
    if f != f or f in (float("inf"), float("-inf")):
        return _GO_SPECIALS[repr(f)]
    if f == 0.0:
        return "-0" if repr(f)[0] == "-" else "0"
    for digits in range(1, 10):
        candidate = f"{f:.{digits - 1}e}"
        if _parse_float32(candidate) == f:
            return format(Decimal(candidate), "f")
        if _is_power_of_two(f):
            # Below a power of two the float32 spacing halves, so the nearest p-digit decimal
            # can miss while the next one up still rounds to f; Go then picks that one.
            above = _next_decimal(candidate, f)
            if _parse_float32(above) == f:
                return format(Decimal(above), "f")
    raise AssertionError(f"no float32 round trip for {f!r}")  # 9 digits always round-trip


def _parse_float32(text: str) -> float:
    """Correctly rounded decimal -> float32, avoiding the double-rounding trap of float()."""
    d = float(text)
    r = to_float32(d)
    if r == d or r in (float("inf"), float("-inf")):
        return r
    other = _float32_step(r, up=d > r)
    if (r + other) / 2 != d:
        return r
    # d sits exactly on a float32 midpoint: decide with the exact decimal, not the double.
    exact, mid = Decimal(text), Decimal(d)
    if exact == mid:
        return r
    return max(r, other) if exact > mid else min(r, other)


def _float32_step(r: float, *, up: bool) -> float:
    """The float32 next to finite ``r`` towards +inf (``up``) or -inf."""
    if r == 0.0:
        tiny = _F32.unpack(_U32.pack(1))[0]
        return tiny if up else -tiny
    bits = _U32.unpack(_F32.pack(r))[0]
    away_from_zero = up == (r > 0)
    bits += 1 if away_from_zero else -1
    return _F32.unpack(_U32.pack(bits))[0]


def _is_power_of_two(f: float) -> bool:
    return _U32.unpack(_F32.pack(f))[0] & 0x7FFFFF == 0


def _next_decimal(candidate: str, f: float) -> str:
    """The decimal one unit in the last digit from ``candidate`` towards ``f``."""
    value = Decimal(candidate)
    unit = Decimal(1).scaleb(value.adjusted() - (len(value.as_tuple().digits) - 1))
    step = value + unit if Decimal(f) > value else value - unit
    return f"{step:e}"


def vector_text(v: list[float]) -> str:
    """TiDB ``VectorFloat32.String()``: ``[a,b,...]`` with each element in float32 'f' form."""
    return "[" + ",".join([float32_text(x) for x in v]) + "]"
