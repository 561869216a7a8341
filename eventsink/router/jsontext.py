"""TiDB's text form of a JSON value (``BinaryJSON.String``), which TiCDC hashes for json columns.

It differs from compact JSON: ``", "`` and ``": "`` separators, object keys sorted bytewise,
integers outside int64/uint64 stored as doubles, doubles in MySQL's style (``1.0``, ``1e15``),
and no HTML escaping of ``<>&`` but escaped U+2028/U+2029.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from eventsink.router.floats import format_float64

_INT64_MIN = -(1 << 63)
_UINT64_MAX = (1 << 64) - 1
_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\b": "\\b",
    "\f": "\\f",
}


def tidb_json_text(value: Any) -> str:
    """Render a JSON value (as parsed from the feed) the way TiDB prints it."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        if _INT64_MIN <= value <= _UINT64_MAX:
            return str(value)
        return _double(float(value))
    if isinstance(value, float):
        return _double(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(tidb_json_text(v) for v in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: str(k).encode("utf-8", "surrogatepass"))
        parts = (f"{_string(str(k))}: {tidb_json_text(value[k])}" for k in keys)
        return "{" + ", ".join(parts) + "}"
    raise TypeError(f"not a JSON value: {value!r}")


def _double(number: float) -> str:
    """MySQL-style doubles: exponent form outside [1e-15, 1e15), else positional with ``.0``."""
    magnitude = abs(number)
    if magnitude != 0 and (magnitude < 1e-15 or magnitude >= 1e15):
        sign, digits, exponent = Decimal(repr(number)).normalize().as_tuple()
        text = "".join(map(str, digits))
        power = int(exponent) + len(text) - 1
        mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
        return f"{'-' if sign else ''}{mantissa}e{power}"
    text = format_float64(number)
    return text if "." in text else text + ".0"


def _string(text: str) -> str:
    out = ['"']
    for char in text:
        escaped = _ESCAPES.get(char)
        if escaped is not None:
            out.append(escaped)
        elif char < " " or char in "\u2028\u2029":
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)
