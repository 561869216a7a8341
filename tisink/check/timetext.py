"""DATE, DATETIME, TIMESTAMP and TIME values as one canonical text each, whatever a database
returns: a ``date``/``datetime``/``time``/``timedelta`` object, or text in MySQL's or ISO's
spelling. The fraction is written with exactly the type's fractional digits (fsp), so
``10:00:00`` and ``10:00:00.000`` are equal in a ``datetime(3)`` column; TIMESTAMP values with
a zone (PostgreSQL's ``timestamptz``, ``...+02:00`` text) are taken to UTC, the zone of a
feed's TIMESTAMP."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

_DATETIME_TEXT = re.compile(
    r"^(\d{4}-\d{2}-\d{2})(?:[ T](\d{1,3}:\d{2}:\d{2})(?:\.(\d*))?)?\s*(Z|[+-]\d{2}:?\d{2})?$"
)
_TIME_TEXT = re.compile(r"^(-)?(\d+):(\d{2}):(\d{2})(?:\.(\d*))?$")


def _fraction(digits: str, fsp: int) -> str:
    """``.ffff`` cut or padded to ``fsp`` digits; nothing for fsp 0."""
    return "." + (digits + "0" * fsp)[:fsp] if fsp else ""


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


def datetime_text(value: Any, fsp: int) -> str:
    """``YYYY-MM-DD HH:MM:SS[.f]`` with ``fsp`` fractional digits, in UTC when zoned."""
    if isinstance(value, dt.datetime):
        value = _aware_to_utc(value)
        stamp = value.strftime("%Y-%m-%d %H:%M:%S")
        return stamp + _fraction(f"{value.microsecond:06d}", fsp)
    if isinstance(value, dt.date):
        return value.isoformat() + " 00:00:00" + _fraction("", fsp)
    text = (value.decode() if isinstance(value, bytes) else str(value)).strip()
    match = _DATETIME_TEXT.match(text)
    if match is None:
        return text
    day, clock, digits, zone = match.groups()
    if zone is not None:
        return datetime_text(dt.datetime.fromisoformat(text.replace(" ", "T", 1)), fsp)
    hours, _, rest = (clock or "00:00:00").partition(":")
    return f"{day} {int(hours):02d}:{rest}" + _fraction(digits or "", fsp)


def _timedelta_text(value: dt.timedelta, fsp: int) -> str:
    """MySQL drivers return TIME as a timedelta (negative, or past 24 hours)."""
    micros = value // dt.timedelta(microseconds=1)
    sign = "-" if micros < 0 else ""
    seconds, micro = divmod(abs(micros), 1_000_000)
    minutes, second = divmod(seconds, 60)
    hours, minute = divmod(minutes, 60)
    return f"{sign}{hours:02d}:{minute:02d}:{second:02d}" + _fraction(f"{micro:06d}", fsp)


def time_text(value: Any, fsp: int) -> str:
    """``[-]HH:MM:SS[.f]`` (hours may pass 24) with ``fsp`` fractional digits."""
    if isinstance(value, dt.timedelta):
        return _timedelta_text(value, fsp)
    if isinstance(value, dt.time):
        clock = value.strftime("%H:%M:%S")
        return clock + _fraction(f"{value.microsecond:06d}", fsp)
    text = (value.decode() if isinstance(value, bytes) else str(value)).strip()
    match = _TIME_TEXT.match(text)
    if match is None:
        return text
    sign, hour_digits, minutes, seconds, digits = match.groups()
    clock = f"{sign or ''}{int(hour_digits):02d}:{minutes}:{seconds}"
    return clock + _fraction(digits or "", fsp)
