"""Go's float formatting for float/double/vector columns (``strconv.FormatFloat`` 'f', -1).

float32 needs care: Go prints the shortest digits that read back as the same *float32*, which
neither ``repr`` (float64 digits) nor formatting at a fixed precision gives. ``float32_text``
computes them exactly with integers, as Ryu does: the float32 ``f = m * 2**e`` and the edges of
the interval of reals that round to it (half an ulp either side; a quarter below a power of two,
where the spacing below halves; edges included when ``m`` is even, as round-half-even reads
them) are scaled to integers in units of ``10**t``. The shortest digits are the multiple of the
largest power of ten inside that interval, the one nearest ``f`` when two are (ties to an even
last digit). ``tests/codec/values/test_float32.py`` proves it equal, over float32 bit patterns
and exhaustive edge ranges, to the former search that tried 1..9 digits with exact parses.
"""

from __future__ import annotations

import struct
from decimal import Decimal

_F32 = struct.Struct("<f")
_F32_BITS = struct.Struct("<I")
_FLOAT32_OVERFLOW = 3.4028235677973366e38
"""2**128 - 2**103: doubles from here on round to float32 infinity."""

_POW5 = tuple(5**n for n in range(160))
"""5**n for the scale of float32s below 2**2 (n <= 151)."""
_POW10 = tuple(10**j for j in range(130))
"""Powers of ten up to the largest scaled interval (about 10**113, for subnormals)."""
_LOG10_2 = 0.30102999566398120


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
    exponent. A short ``repr`` is the answer as it stands; other values are memoised per
    input (zero is excluded: 0.0 and -0.0 are equal keys).

    Why a short ``repr`` is exact: a plain decimal of at most 7 characters besides the sign,
    ``d = D / 10**q``, has ``q <= 6``, ``|d| < 10**6`` and at most 6 significant digits. A
    float32 rounding tie ``t`` is a 25-bit odd mantissa times ``2**k``: for ``k >= 0`` it is
    at least ``2**24``, beyond ``d``; for ``k < 0`` a ``d != t`` lies at least
    ``1 / (10**q * 2**-k)`` from it, more than the half double ulp of ``t`` (at most
    ``2**(k - 29)``), and ``d`` is never a tie itself (a tie's digits run past 6 places). So
    no tie lies between ``d`` and ``v``, the double nearest it: ``d`` is strictly inside the
    interval of reals that read back as ``float32(v)``, and no other decimal of 6 significant
    digits is (that interval is under ``1.2e-7`` of its value wide, the gap between such
    decimals at least ``1e-6``)."""
    text = repr(v)
    size = len(text)
    if (size <= 7 or (size == 8 and text[0] == "-")) and "." in text and "e" not in text:
        return text[:-2] if text.endswith(".0") else text
    cached = _F32_TEXT.get(v)
    if cached is not None:
        return cached
    text = _float32_text(v)
    if v and v == v and len(_F32_TEXT) < _F32_TEXT_LIMIT:
        _F32_TEXT[v] = text
    return text


def _exponent_table() -> tuple[tuple[int, int, int, int, int, int, int, int], ...]:
    """Per biased exponent: ``scale`` and ``t`` with ``2**e2 = scale * 10**t``, where a
    float32 is ``4m`` units of ``2**e2``; ``j``, a power of ten that even the narrowest
    interval of the exponent spans (``10**j <= 2**(bits - 1) <= 3 * scale``); and the interval
    edges' offsets (2 units above, 2 or, for a power of two, 1 below) as quotient and
    remainder of ``10**j``."""
    table = []
    for exponent in range(255):
        e2 = exponent - 152 if exponent else -151
        scale, t = (1 << e2, 0) if e2 >= 0 else (_POW5[-e2], e2)
        j = int(((3 * scale).bit_length() - 1) * _LOG10_2)
        half = divmod(2 * scale, _POW10[j])
        quarter = divmod(scale, _POW10[j]) if exponent > 1 else half
        table.append((scale, t, j, _POW10[j], *half, *quarter))
    return tuple(table)


_EXPONENTS = _exponent_table()


def _float32_text(v: float) -> str:
    if not -_FLOAT32_OVERFLOW < v < _FLOAT32_OVERFLOW:  # also NaN
        return "NaN" if v != v else "+Inf" if v > 0 else "-Inf"
    packed = _F32.pack(v)
    bits = _F32_BITS.unpack(packed)[0]
    sign = "-" if bits >> 31 else ""
    exponent, fraction = bits >> 23 & 0xFF, bits & 0x7FFFFF
    if not (exponent or fraction):
        return sign + "0"
    scale, t, j, unit, high_q, high_r, low_q, low_r = _EXPONENTS[exponent]
    if exponent:
        m = fraction | 0x800000
        if fraction:  # not a power of two: the spacing below is the same as above
            low_q, low_r = high_q, high_r
    else:
        m = fraction
    # f = middle * 10**t. The reals that round to f lie within half an ulp above and below
    # (a quarter below a power of two), edges included for an even m. Counted in ``unit``
    # (10**j), which the interval surely spans, it is [lo, hi]: small integers, hi - lo < 30.
    whole, rest = divmod((m << 2) * scale, unit)
    odd = m & 1
    lo = whole - low_q + (rest + odd > low_r)
    over = rest + high_r - odd
    hi = whole + high_q + (over >= unit) - (over < 0)
    # The largest power of ten with a multiple in [lo, hi]: 10**k has one iff hi % 10**k
    # <= hi - lo, and beyond 10**2 only if the digits above hi's last two are zeros.
    spread = hi - lo
    if hi % 100 <= spread:
        above = str(hi // 100)
        k = 2 + len(above) - len(above.rstrip("0"))
    else:
        k = 1 if hi % 10 <= spread else 0
    # Of its multiples there, the one nearest f, ties to an even last digit.
    if k:
        step = _POW10[k]
        q, r = divmod(whole, step)
        half_step = step >> 1
        if r > half_step or (r == half_step and (rest or q & 1)):
            q += 1
    else:
        step, q = 1, whole
        if rest + rest > unit or (rest + rest == unit and q & 1):
            q += 1
    nearest = q * step
    if nearest < lo:
        q += 1
    elif nearest > hi:
        q -= 1
    digits, exponent = str(q), t + j + k
    if exponent >= 0:
        return sign + digits + "0" * exponent
    point = len(digits) + exponent
    if point > 0:
        return sign + digits[:point] + "." + digits[point:]
    return sign + "0." + "0" * -point + digits


def vector_text(v: list[float]) -> str:
    """TiDB ``VectorFloat32.String()``: ``[a,b,...]`` with each element in float32 'f' form."""
    return "[" + ",".join([float32_text(x) for x in v]) + "]"
