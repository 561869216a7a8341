"""TiDB ``BinaryJSON.String()`` for JSON columns (spec 2): the MySQL-style text TiCDC writes.

Objects come out with keys sorted bytewise (TiDB sorts them when it stores the document), ", "
and ": " separators, Go's string escaping without the HTML-safe part, integers as int64/uint64
text and floats in TiDB's ``marshalFloat64To`` style.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from tisink.codec.errors import CodecError
from tisink.codec.values.floats import float64_text

_JSON_HEX = "0123456789abcdef"
_JSON_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_JSON_ESCAPES |= {"\b": "\\b", "\f": "\\f", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_JSON_ESCAPES |= {
    chr(c): "\\u00" + _JSON_HEX[c >> 4] + _JSON_HEX[c & 0xF]
    for c in range(0x20)
    if chr(c) not in _JSON_ESCAPES
}
_JSON_TRANSLATE = str.maketrans(_JSON_ESCAPES)
_JSON_NEEDS_ESCAPE = frozenset(_JSON_ESCAPES)


def _json_quote(s: str) -> str:
    """TiDB's JSON string quoting: Go's escaping without the HTML-safe part (<, >, & stay)."""
    if _JSON_NEEDS_ESCAPE.isdisjoint(s):
        return '"' + s + '"'
    return '"' + s.translate(_JSON_TRANSLATE) + '"'


def json_text(v: Any) -> str:
    """TiDB ``BinaryJSON.String()`` of a feed JSON value: ", " and ": " separators, object keys
    sorted bytewise (TiDB sorts them when it stores the document), floats in MySQL's style."""
    buf: list[str] = []
    _json_append(buf, v)
    return "".join(buf)


_INT64_MIN, _UINT64_MAX = -(1 << 63), (1 << 64) - 1


def _json_append(buf: list[str], v: Any) -> None:
    if v is None:
        buf.append("null")
    elif v is True:
        buf.append("true")
    elif v is False:
        buf.append("false")
    elif isinstance(v, str):
        buf.append(_json_quote(v))
    elif isinstance(v, int):
        # TiDB parses a JSON number as int64, then uint64, then float64.
        buf.append(str(v) if _INT64_MIN <= v <= _UINT64_MAX else _json_float(float(v)))
    elif isinstance(v, float):
        buf.append(_json_float(v))
    elif isinstance(v, list | tuple):
        buf.append("[")
        for i, item in enumerate(v):
            if i:
                buf.append(", ")
            _json_append(buf, item)
        buf.append("]")
    elif isinstance(v, dict):
        buf.append("{")
        # Code-point order is UTF-8 byte order, surrogates included, so plain sorted() is
        # TiDB's bytewise key order.
        for i, key in enumerate(sorted(v)):
            if i:
                buf.append(", ")
            buf.append(_json_quote(key))
            buf.append(": ")
            _json_append(buf, v[key])
        buf.append("}")
    else:
        raise CodecError(f"unsupported JSON value of type {type(v).__name__}")


def _json_float(f: float) -> str:
    """TiDB ``marshalFloat64To``: 'f' form with at least ".0" for 1e-15 <= |f| < 1e15, else the
    shortest 'e' form without "+" (exponents there always have two or more digits)."""
    if f != f or f in (float("inf"), float("-inf")):
        raise CodecError(f"JSON value {f!r} is not representable")
    magnitude = abs(f)
    if magnitude == 0 or 1e-15 <= magnitude < 1e15:
        text = float64_text(f)
        return text if "." in text else text + ".0"
    digits = Decimal(repr(f)).normalize().as_tuple()
    mantissa = "".join(map(str, digits.digits))
    exponent = int(digits.exponent) + len(mantissa) - 1
    sign = "-" if digits.sign else ""
    body = mantissa[0] + ("." + mantissa[1:] if len(mantissa) > 1 else "")
    return f"{sign}{body}e{exponent}"
