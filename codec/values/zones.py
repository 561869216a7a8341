"""Time zones and TIMESTAMP values as TiCDC renders them (spec/simple-protocol.md 2).

Feed TIMESTAMPs are UTC text; TiCDC writes them in the changefeed's zone, named the way Go's
``time.Location`` names it. Shared by every protocol and by the router's index-value hash.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Callable
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from tisink.codec.errors import CodecError
from tisink.core.errors import ConfigError

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
