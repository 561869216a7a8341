"""Value rendering shared by the Simple JSON and Avro marshallers (spec 2 and 3.3).

Every function takes the feed-file value form (spec/feed-format.md "Values") and returns the text
or number TiCDC would write. They are pure and cheap, because they run once per column per row;
the marshallers bind them into per-table renderers once per schema version. The float and
JSON-column rules live in ``floats`` and ``json_value`` and are re-exported here.
"""

from __future__ import annotations

import binascii
import datetime
import os
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from codec.errors import CodecError, ConfigError
from codec.simple.floats import float32_text, float64_text, to_float32, vector_text
from codec.simple.json_value import json_text
from model.table import ColumnInfo

__all__ = [
    "binary_bytes",
    "bit_default_number",
    "enum_index",
    "float32_text",
    "float64_text",
    "json_text",
    "set_bitmask",
    "timestamp_text",
    "timestamp_texts",
    "to_float32",
    "vector_text",
    "zone_for",
]

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


_SECONDS_CACHE_LIMIT = 1 << 14


def timestamp_texts(tz: datetime.tzinfo) -> Callable[[str], str]:
    """``timestamp_text`` for one zone, memoised per whole second of the value.

    Rows arriving together mostly share their second, so the zone conversion runs about once per
    second of data; the fraction digits are appended as given. UTC needs no conversion at all.
    """
    if tz is datetime.UTC:
        return str.__str__
    seconds_texts: dict[str, str] = {}

    def convert(value: str) -> str:
        seconds, dot, fraction = value.partition(".")
        text = seconds_texts.get(seconds)
        if text is None:
            full = timestamp_text(value, tz)
            text = full[: len(full) - len(dot) - len(fraction)]
            if len(seconds_texts) >= _SECONDS_CACHE_LIMIT:
                seconds_texts.clear()
            seconds_texts[seconds] = text
        return text + dot + fraction if dot else text

    return convert


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
