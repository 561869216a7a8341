"""DATE, DATETIME, TIMESTAMP and TIME values as one canonical text each, whatever a database
returns: a ``date``/``datetime``/``time``/``timedelta`` object, or text in MySQL's or ISO's
spelling. The fraction is written with exactly the type's fractional digits (fsp), so
``10:00:00`` and ``10:00:00.000`` are equal in a ``datetime(3)`` column; digits past the fsp
are rounded half up as MySQL stores them (``:56.9`` in a DATETIME is ``:57``, carried into the
minutes, hours and days; a TIME rounds away from zero), after text past microseconds is
rounded to microseconds as a server parses it. TIMESTAMP values with a zone (PostgreSQL's
``timestamptz``, ``...+02:00`` text) are taken to UTC, the zone of a feed's TIMESTAMP."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

_DATETIME_TEXT = re.compile(
    r"^(\d{4}-\d{2}-\d{2})(?:[ T](\d{1,3}:\d{2}:\d{2})(?:\.(\d*))?)?\s*(Z|[+-]\d{2}:?\d{2})?$"
)
_TIME_TEXT = re.compile(r"^(-)?(\d+):(\d{2}):(\d{2})(?:\.(\d*))?$")


_MICROS = 1_000_000
_DAY = 86_400 * _MICROS


def _micros(digits: str) -> int:
    """The fraction ``.digits`` in microseconds, rounded half up past the sixth digit (may be
    a whole second)."""
    micros = int((digits + "000000")[:6])
    return micros + (len(digits) > 6 and digits[6] >= "5")


def _rounded(micros: int, fsp: int) -> int:
    """``micros`` (not negative) rounded half up to a multiple of the fsp's unit (an fsp
    past 6, which no MySQL type has, keeps microseconds)."""
    unit = 10 ** (6 - min(fsp, 6))
    return (micros + unit // 2) // unit * unit


def _fraction(micros: int, fsp: int) -> str:
    """``.ffff``: the first ``fsp`` digits of a rounded fraction; nothing for fsp 0."""
    return "." + f"{micros:06d}"[:fsp] if fsp else ""


def _aware_to_utc(value: dt.datetime) -> dt.datetime:
    if value.tzinfo is None:
        return value
    return value.astimezone(dt.UTC).replace(tzinfo=None)


def date_text(value: Any) -> str:
    """``YYYY-MM-DD``; text that is no date is returned stripped, to compare as text."""
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    text = value.decode() if isinstance(value, bytes) else str(value)
    match = _DATETIME_TEXT.match(text.strip())
    return match[1] if match else text.strip()


def _stamp(value: dt.datetime, fsp: int) -> str:
    """A naive datetime rounded to ``fsp`` digits (OverflowError past year 9999)."""
    micros = _rounded(value.microsecond, fsp)
    if micros == _MICROS:
        value += dt.timedelta(microseconds=_MICROS - value.microsecond)
        micros = 0
    return (
        f"{value.year:04d}-{value.month:02d}-{value.day:02d} "
        f"{value.hour:02d}:{value.minute:02d}:{value.second:02d}" + _fraction(micros, fsp)
    )


def _parsed_datetime(text: str) -> dt.datetime | None:
    """MySQL or ISO text as a naive UTC datetime at microseconds; None when it is no valid
    date and time (a zero date, hour 24)."""
    match = _DATETIME_TEXT.match(text)
    if match is None:
        return None
    day, clock, digits, zone = match.groups()
    hours, minutes, seconds = (int(part) for part in (clock or "00:00:00").split(":"))
    try:
        stamp = dt.datetime.fromisoformat(day).replace(hour=hours, minute=minutes, second=seconds)
    except ValueError:
        return None
    stamp += dt.timedelta(microseconds=_micros(digits or ""))
    if zone is None:
        return stamp
    offset = zone.replace(":", "")[1:] if zone != "Z" else "0000"
    east = dt.timedelta(hours=int(offset[:2]), minutes=int(offset[2:]))
    return stamp + east if zone.startswith("-") else stamp - east


def datetime_text(value: Any, fsp: int) -> str:
    """``YYYY-MM-DD HH:MM:SS[.f]`` with ``fsp`` fractional digits, in UTC when zoned."""
    if isinstance(value, dt.datetime):
        return _stamp(_aware_to_utc(value), fsp)
    if isinstance(value, dt.date):
        return value.isoformat() + " 00:00:00" + _fraction(0, fsp)
    text = (value.decode() if isinstance(value, bytes) else str(value)).strip()
    stamp = _parsed_datetime(text)
    if stamp is not None:
        return _stamp(stamp, fsp)
    match = _DATETIME_TEXT.match(text)
    if match is None or match[4] is not None:
        return text
    day, clock, digits, _ = match.groups()  # a day that is no date, such as 0000-00-00
    hours, minutes, seconds = (int(part) for part in (clock or "00:00:00").split(":"))
    size = ((hours * 60 + minutes) * 60 + seconds) * _MICROS + _micros(digits or "")
    if minutes >= 60 or seconds >= 60 or _rounded(size, fsp) >= _DAY:
        return text  # no carry into such a day: compared as written
    return f"{day} {_clock(size, fsp)}"


def _clock(micros: int, fsp: int) -> str:
    """A signed TIME in microseconds as ``[-]HH:MM:SS[.f]``, its size rounded to ``fsp``."""
    size = _rounded(abs(micros), fsp)
    seconds, fraction = divmod(size, _MICROS)
    minutes, second = divmod(seconds, 60)
    hours, minute = divmod(minutes, 60)
    sign = "-" if micros < 0 and size else ""
    return f"{sign}{hours:02d}:{minute:02d}:{second:02d}" + _fraction(fraction, fsp)


def time_text(value: Any, fsp: int) -> str:
    """``[-]HH:MM:SS[.f]`` (hours may pass 24) with ``fsp`` fractional digits. MySQL drivers
    return TIME as a timedelta (negative, or past 24 hours), others as a time or text."""
    if isinstance(value, dt.timedelta):
        return _clock(value // dt.timedelta(microseconds=1), fsp)
    if isinstance(value, dt.time):
        seconds = (value.hour * 60 + value.minute) * 60 + value.second
        return _clock(seconds * _MICROS + value.microsecond, fsp)
    text = (value.decode() if isinstance(value, bytes) else str(value)).strip()
    match = _TIME_TEXT.match(text)
    if match is None:
        return text
    sign, *clock, digits = match.groups()
    hours, minutes, seconds = (int(part) for part in clock)
    if minutes >= 60 or seconds >= 60:  # no TIME: compared as text
        return text
    size = ((hours * 60 + minutes) * 60 + seconds) * _MICROS + _micros(digits or "")
    return _clock(-size if sign else size, fsp)
