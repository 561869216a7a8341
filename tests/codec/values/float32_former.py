"""The former ``float32_text`` search, kept as the oracle the exact algorithm is proved against.

It tries 1..9 significant digits (the nearest decimal of each length, Python's correctly
rounded formatting) and parses each back to float32 exactly, with Go's extra candidate below
a power of two. Slow (about 20 µs a value) and obviously right, which is what an oracle needs.
"""

from __future__ import annotations

import struct
from decimal import Decimal

_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")
_GO_SPECIALS = {"inf": "+Inf", "-inf": "-Inf", "nan": "NaN"}


def to_float32(v: float) -> float:
    try:
        return _F32.unpack(_F32.pack(v))[0]
    except OverflowError:
        return float("inf") if v > 0 else float("-inf")


def former_float32_text(v: float) -> str:
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
            above = _next_decimal(candidate, f)
            if _parse_float32(above) == f:
                return format(Decimal(above), "f")
    raise AssertionError(f"no float32 round trip for {f!r}")


def _parse_float32(text: str) -> float:
    """Correctly rounded decimal -> float32, avoiding the double-rounding trap of float()."""
    d = float(text)
    r = to_float32(d)
    if r == d or r in (float("inf"), float("-inf")):
        return r
    other = _float32_step(r, up=d > r)
    if (r + other) / 2 != d:
        return r
    exact, mid = Decimal(text), Decimal(d)
    if exact == mid:
        return r
    return max(r, other) if exact > mid else min(r, other)


def _float32_step(r: float, *, up: bool) -> float:
    if r == 0.0:
        tiny = _F32.unpack(_U32.pack(1))[0]
        return tiny if up else -tiny
    bits = _U32.unpack(_F32.pack(r))[0]
    bits += 1 if up == (r > 0) else -1
    return _F32.unpack(_U32.pack(bits))[0]


def _is_power_of_two(f: float) -> bool:
    return _U32.unpack(_F32.pack(f))[0] & 0x7FFFFF == 0


def _next_decimal(candidate: str, f: float) -> str:
    value = Decimal(candidate)
    unit = Decimal(1).scaleb(value.adjusted() - (len(value.as_tuple().digits) - 1))
    step = value + unit if Decimal(f) > value else value - unit
    return f"{step:e}"
