"""Value rendering shared by the Simple JSON and Avro marshallers (spec 2 and 3.3).

Every function takes the feed-file value form (spec/feed-format.md "Values") and returns the text
or number TiCDC would write. They are pure and cheap, because they run once per column per row;
the marshallers bind them into per-table renderers once per schema version.
"""

from __future__ import annotations

import binascii
import datetime
import os
import struct
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from codec.errors import CodecError, ConfigError
from model.table import ColumnInfo

_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")
_UTC_NAMES = ("UTC", "Etc/UTC")
_LOCAL_NAMES = ("", "system", "local", "Local")
_ZERO_TIMESTAMP_PREFIX = "0000-00-00"


# --- time zones and timestamps ------------------------------------------------------------------


def zone_for(time_zone: str | None) -> tuple[str, datetime.tzinfo]:
    """The ``location`` name and tzinfo for a timestamp value.

    ``None`` (or TiCDC's "", "system", "local") means the process's zone, named the way TiCDC's
    ``GetTimezone`` names it: the TZ variable, else the IANA name behind /etc/localtime, else UTC.
    UTC itself maps to ``datetime.timezone.utc`` so that rendering it is a no-op. Not cached:
    the environment may change between encoders, and ZoneInfo caches the zone data itself.
    """
    name = _local_zone_name() if time_zone is None or time_zone in _LOCAL_NAMES else time_zone
    if name in _UTC_NAMES:
        return name, datetime.UTC
    try:
        return name, ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as err:
        raise ConfigError(f"unknown time zone {name!r} for timestamp values") from err


def _local_zone_name() -> str:
    tz_env = os.environ.get("TZ")
    if tz_env is not None:
        # Go treats an empty TZ as UTC and a leading ":" as "the rest is the zone name".
        name = tz_env.removeprefix(":") or "UTC"
        try:
            ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            return "UTC"
        return name
    localtime = Path("/etc/localtime")
    try:
        target = str(localtime.resolve(strict=True))
    except OSError:
        return "UTC"
    marker = "zoneinfo/"
    if marker in target:
        return target.split(marker, 1)[1]
    timezone_file = Path("/etc/timezone")
    if timezone_file.is_file():
        name = timezone_file.read_text(encoding="utf-8").strip()
        if name:
            return name
    return "UTC"


def timestamp_text(value: str, tz: datetime.tzinfo) -> str:
    """A UTC ``YYYY-MM-DD HH:MM:SS[.ffffff]`` moved into ``tz``, fraction digits kept as given.

    TiDB keeps the zero timestamp as zero in every zone, so it passes through unchanged.
    """
    if tz is datetime.UTC or value.startswith(_ZERO_TIMESTAMP_PREFIX):
        return value
    seconds, dot, fraction = value.partition(".")
    try:
        if len(seconds) != 19 or seconds[10] != " ":
            raise ValueError(value)
        moment = datetime.datetime(
            int(seconds[0:4]),
            int(seconds[5:7]),
            int(seconds[8:10]),
            int(seconds[11:13]),
            int(seconds[14:16]),
            int(seconds[17:19]),
            tzinfo=datetime.UTC,
        )
    except (ValueError, IndexError) as err:
        raise CodecError(f"bad timestamp value {value!r}: want 'YYYY-MM-DD HH:MM:SS[.f]'") from err
    local = moment.astimezone(tz)
    return local.strftime("%Y-%m-%d %H:%M:%S") + dot + fraction


# --- enum, set, binary ----------------------------------------------------------------------------


@lru_cache(maxsize=1024)
def _member_positions(elements: tuple[str, ...]) -> dict[str, int]:
    positions: dict[str, int] = {}
    for position, name in enumerate(elements):
        positions.setdefault(name, position)
    return positions


def enum_index(column: ColumnInfo, value: str) -> int:
    """The 1-based member index TiCDC writes for an enum; "" is MySQL's error member, index 0."""
    position = _member_positions(column.elements).get(value)
    if position is not None:
        return position + 1
    if value == "":
        return 0
    raise CodecError(
        f"column {column.name!r}: {value!r} is not a member of enum{list(column.elements)}"
    )


def set_bitmask(column: ColumnInfo, value: list[str] | str) -> int:
    """The bitmask of a set value: bit i is the i-th member; a comma-joined string is accepted."""
    names = (value.split(",") if value else []) if isinstance(value, str) else value
    positions = _member_positions(column.elements)
    mask = 0
    for name in names:
        position = positions.get(name)
        if position is None:
            raise CodecError(
                f"column {column.name!r}: {name!r} is not a member of set{list(column.elements)}"
            )
        mask |= 1 << position
    return mask


def binary_bytes(column: ColumnInfo, value: str) -> bytes:
    """The bytes of a base64 feed value; ``binary(N)`` is zero-padded to N bytes, as TiDB does."""
    try:
        raw = binascii.a2b_base64(value, strict_mode=True)
    except (binascii.Error, TypeError, ValueError) as err:
        raise CodecError(f"column {column.name!r}: value is not standard base64: {err}") from err
    if column.mysql_type == "binary" and column.length:
        if len(raw) > column.length:
            raise CodecError(
                f"column {column.name!r}: {len(raw)} bytes do not fit binary({column.length})"
            )
        if len(raw) < column.length:
            raw += bytes(column.length - len(raw))
    return raw


# --- floating point -------------------------------------------------------------------------------


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


# --- JSON columns ---------------------------------------------------------------------------------

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


_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(1 << 63), (1 << 63) - 1, (1 << 64) - 1


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
        for i, key in enumerate(sorted(v, key=_utf8_key)):
            if i:
                buf.append(", ")
            buf.append(_json_quote(key))
            buf.append(": ")
            _json_append(buf, v[key])
        buf.append("}")
    else:
        raise CodecError(f"unsupported JSON value of type {type(v).__name__}")


def _utf8_key(key: str) -> bytes:
    return key.encode("utf-8", "surrogatepass")


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


# --- BIT defaults ---------------------------------------------------------------------------------


def bit_default_number(default: Any) -> int | None:
    """A BIT column's default as the JSON ``tableSchema`` number (TiDB MustBinaryLiteralToInt).

    Accepted feed forms: an int (already the number); ``"b'1010'"`` or ``"0b1010"`` bit
    literals; ``"0x2aa"`` hex literals; any other string is TiDB's raw stored default, one byte
    per character, read big-endian.
    """
    if default is None:
        return None
    if isinstance(default, bool) or not isinstance(default, int | str):
        raise CodecError(f"bad BIT default {default!r}")
    if isinstance(default, int):
        return default
    text = default
    try:
        if text[:2] in ("b'", "B'") and text.endswith("'"):
            return int(text[2:-1] or "0", 2)
        if text[:2] in ("0b", "0B"):
            return int(text[2:], 2)
        if text[:2] in ("0x", "0X"):
            return int(text[2:], 16)
        return int.from_bytes(text.encode("latin-1"), "big")
    except (ValueError, UnicodeEncodeError) as err:
        raise CodecError(f"bad BIT default {default!r}: {err}") from err
