"""DATE, DATETIME, TIMESTAMP and TIME values in Debezium's units (spec/debezium.md section 2).

Go semantics, not Python's: year 0 exists (``0000-01-01`` is a valid date), a date that does not
exist on the calendar (``0000-00-00``, ``2023-02-30``) is "invalid" (the caller writes null or 0),
and years 0-69 / 70-99 move to 20xx / 19xx (TiCDC v8.5.5+). Days and epoch milliseconds are
floored, as Go's ``Unix()/86400`` and ``UnixMilli`` give for midnight dates and valid times.
"""

from __future__ import annotations

import datetime
import re

_EPOCH = datetime.datetime(1970, 1, 1)
_MICRO = datetime.timedelta(microseconds=1)
_DAY = 86_400
_MIN_TIMESTAMP = "1970-01-01 00:00:01"
ZERO_ZONED = "1970-01-01T00:00:00Z"
_DATETIME_SHAPE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}:\d{2}(?:\.\d+)?)?")
_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def civil_days(year: int, month: int, day: int) -> int | None:
    """Days from 1970-01-01 to a proleptic Gregorian date, year 0 included; None when the date
    is not on the calendar."""
    if not 1 <= month <= 12 or day < 1:
        return None
    if day > _MONTH_DAYS[month - 1] + (month == 2 and _leap(year)):
        return None
    # Days-from-civil with March-based years, so February's end is the year's end.
    y = year - (month <= 2)
    era = y // 400
    year_of_era = y - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146_097 + day_of_era - 719_468


def _two_digit_year(year: int) -> int:
    """TiCDC's reading of years 0-99 (v8.5.5+): 0-69 are 20xx, 70-99 are 19xx."""
    if year < 70:
        return year + 2000
    if year < 100:
        return year + 1900
    return year


def date_days(text: str) -> int | None:
    """``YYYY-MM-DD`` as days since the epoch; None for an invalid date."""
    try:
        if len(text) != 10 or text[4] != "-" or text[7] != "-":
            return None
        year, month, day = int(text[0:4]), int(text[5:7]), int(text[8:10])
    except ValueError:
        return None
    return civil_days(_two_digit_year(year), month, day)


def parse_datetime(text: str) -> tuple[int, int, int, int, int, int, int] | None:
    """``YYYY-MM-DD[ HH:MM:SS[.f...]]`` as (year, month, day, hour, minute, second, micro);
    None when it is not on the calendar or the clock. Digits past the sixth are dropped."""
    try:
        if len(text) == 10:
            text += " 00:00:00"
        if len(text) < 19 or text[4] != "-" or text[7] != "-" or text[10] not in " T":
            return None
        if text[13] != ":" or text[16] != ":":
            return None
        fraction = text[20:] if len(text) > 19 and text[19] == "." else ""
        if len(text) > 19 and text[19] != ".":
            return None
        micro = int((fraction + "000000")[:6]) if fraction else 0
        if fraction and not fraction.isdigit():
            return None
        parts = (int(text[0:4]), int(text[5:7]), int(text[8:10]))
        clock = (int(text[11:13]), int(text[14:16]), int(text[17:19]))
    except ValueError:
        return None
    if clock[0] > 23 or clock[1] > 59 or clock[2] > 59 or civil_days(*parts) is None:
        return None
    return (*parts, *clock, micro)


def _epoch_micros(parts: tuple[int, int, int, int, int, int, int]) -> int:
    year, month, day, hour, minute, second, micro = parts
    days = civil_days(_two_digit_year(year), month, day)
    assert days is not None  # a two-digit shift keeps leap years: 2000 and 1900 + y agree
    return ((days * _DAY + hour * 3600 + minute * 60 + second) * 1_000_000) + micro


def datetime_value(text: str, fsp: int) -> int | None:
    """DATETIME as epoch ms (fsp <= 3) or µs (fsp > 3), the wall time taken as UTC; None when
    invalid. The common case goes through ``fromisoformat`` (C code)."""
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError:
        parts = parse_datetime(text)
        if parts is None:
            return None
        micros = _epoch_micros(parts)
    else:
        if moment.tzinfo is not None:
            return None
        if moment.year < 100:
            moment = moment.replace(year=_two_digit_year(moment.year))
        micros = (moment - _EPOCH) // _MICRO
    return micros // 1000 if fsp <= 3 else micros


def zoned_timestamp(text: str, fsp: int) -> str | None:
    """A UTC ``YYYY-MM-DD HH:MM:SS[.f]`` as io.debezium.time.ZonedTimestamp text with exactly
    ``fsp`` fraction digits (cut, as TiCDC's ``%06d`` slice); None below TiDB's MinTimestamp
    (the zero timestamp), which the caller writes as null or the epoch."""
    if text < _MIN_TIMESTAMP:
        return None
    seconds, _, fraction = text.partition(".")
    out = seconds[:10] + "T" + seconds[11:19]
    if fsp:
        out += "." + (fraction + "000000")[:fsp]
    return out + "Z"


def time_micros(text: str) -> int:
    """``[-]H...H:MM:SS[.f]`` as signed microseconds; ValueError when it is not that shape."""
    negative = text.startswith("-")
    body = text[1:] if negative else text
    clock, _, fraction = body.partition(".")
    hours, minutes, seconds = clock.split(":")
    if len(minutes) != 2 or len(seconds) != 2 or (fraction and not fraction.isdigit()):
        raise ValueError(f"not a TIME value: {text!r}")
    micro = int((fraction + "000000")[:6]) if fraction else 0
    total = (int(hours) * 3600 + int(minutes) * 60 + int(seconds)) * 1_000_000 + micro
    return -total if negative else total


def default_micros(text: str, fsp: int) -> int | None:
    """A DATETIME/TIMESTAMP DEFAULT text as epoch µs (wall time as UTC), its fraction rounded
    half up to ``fsp`` digits as TiDB's ``StrToDateTime`` stores it; None when unreadable."""
    parts = parse_datetime(text)
    if parts is None:
        return None
    micros = _epoch_micros(parts)
    unit = 10 ** (6 - fsp)
    return (micros + unit // 2) // unit * unit if unit > 1 else micros


def datetime_shaped(text: str) -> bool:
    """Whether ``text`` reads as a date-time at all, valid on the calendar or not (TiDB parses
    ``0000-00-00 00:00:00`` and fails only when it makes a Go time of it)."""
    return _DATETIME_SHAPE.fullmatch(text) is not None


def micros_text(micros: int) -> str:
    """Epoch µs (from 1970 on) back to ``YYYY-MM-DD HH:MM:SS.ffffff``."""
    moment = _EPOCH + datetime.timedelta(microseconds=micros)
    return moment.strftime("%Y-%m-%d %H:%M:%S.%f")
