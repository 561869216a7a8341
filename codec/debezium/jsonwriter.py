"""JSON bytes as TiCDC's Debezium codec writes them: json-iterator, ``EscapeHTML: false``.

TiCDC builds Debezium messages with ``pkg/util.JSONWriter`` over json-iterator, not Go's
``encoding/json``, so the text differs from ``codec.gojson`` (spec/debezium.md 1.10):

* strings: ``"`` ``\\`` ``\\n`` ``\\r`` ``\\t`` short escapes, every other byte below 0x20 as
  ``\\u00xx`` (``\\b`` and ``\\f`` too), the rest raw UTF-8: no HTML escaping, U+2028 stays raw.
  orjson differs only for ``\\b`` and ``\\f``, which ``dumps`` rewrites.
* floats: Go's shortest digits in ``'f'`` form, or ``'e'`` form below 1e-6 and from 1e21 on,
  where ``e-07`` is shortened to ``e-7``; integral values carry no ``.0``. orjson agrees only
  for non-integral magnitudes in [1e-5, 1e16), so ``double`` hands it those and writes the rest.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import orjson

from tisink.codec.errors import CodecError
from tisink.codec.gojson import repaired_dumps
from tisink.codec.values import float32_text, float64_text, to_float32

Fragment = orjson.Fragment

_SHORT_ESCAPE = re.compile(rb"(?<!\\)((?:\\\\)*)\\([bf])")
_LONG_ESCAPES = {b"b": b"\\u0008", b"f": b"\\u000c"}
_F32_E_BELOW = to_float32(1e-6)


def _long_escape(match: re.Match[bytes]) -> bytes:
    return match.group(1) + _LONG_ESCAPES[match.group(2)]


def escape_fix(out: bytes) -> bytes:
    """orjson output with json-iterator's ``\\u0008``/``\\u000c`` for ``\\b``/``\\f``; only an
    escape that is not itself an escaped backslash is rewritten."""
    if b"\\b" in out or b"\\f" in out:
        return _SHORT_ESCAPE.sub(_long_escape, out)
    return out


def dumps(value: Any) -> bytes:
    """Compact json-iterator bytes of dicts (insertion order), lists, str, int, bool, None and
    orjson Fragments. A lone surrogate, which no Go string can hold, becomes U+FFFD."""
    return escape_fix(repaired_dumps(value))


def quote(text: str) -> bytes:
    """One JSON string, for byte templates."""
    return dumps(text)


def _e_form(text: str) -> str:
    """Go's ``'e'`` form of the shortest digits in ``text`` (any notation), then json-iterator's
    ``e-0d`` -> ``e-d`` clean-up."""
    sign, digits, exponent = Decimal(text).normalize().as_tuple()
    mantissa = "".join(map(str, digits))
    power = int(exponent) + len(mantissa) - 1
    body = mantissa[0] + ("." + mantissa[1:] if len(mantissa) > 1 else "")
    tail = f"e{'-' if power < 0 else '+'}{abs(power):02d}"
    if tail.startswith("e-0"):
        tail = "e-" + tail[3:]
    return ("-" if sign else "") + body + tail


def float64_json(v: float) -> str:
    """json-iterator ``WriteFloat64``; NaN and infinities are errors there, CodecError here."""
    if v != v or v in (float("inf"), float("-inf")):
        raise CodecError(f"unsupported value: {v!r} cannot be written as JSON")
    magnitude = abs(v)
    if magnitude != 0 and (magnitude < 1e-6 or magnitude >= 1e21):
        return _e_form(repr(v))
    return float64_text(v)


def float32_json(v: float) -> str:
    """json-iterator ``WriteFloat32`` of ``float32(v)``: its cut-offs compare float32 values."""
    f = to_float32(v)
    if f != f or f in (float("inf"), float("-inf")):
        raise CodecError(f"unsupported value: {v!r} is not a finite float32")
    text = float32_text(f)
    magnitude = abs(f)
    if magnitude != 0 and (magnitude < _F32_E_BELOW or magnitude >= 1e21):
        return _e_form(text)
    return text


def double(v: float) -> Any:
    """A float64 as a value orjson writes in json-iterator's form: the float itself where the
    two agree, an int for small integral values, else a Fragment of the exact text."""
    magnitude = abs(v)
    if 1e-5 <= magnitude < 1e16:
        return int(v) if v.is_integer() else v
    return Fragment(float64_json(v))


_F32_CACHE: dict[float, Fragment] = {}
_F32_CACHE_LIMIT = 1 << 16


def single(v: float) -> Fragment:
    """A float32 column value as a Fragment, memoised per input value (zero excluded, since
    0.0 and -0.0 are equal keys)."""
    fragment = _F32_CACHE.get(v)
    if fragment is None:
        fragment = Fragment(float32_json(v))
        if v and len(_F32_CACHE) < _F32_CACHE_LIMIT:
            _F32_CACHE[v] = fragment
    return fragment
