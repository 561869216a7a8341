"""DATE/TIME/DATETIME/YEAR as DTS ``DateTime`` segments, TIMESTAMP as ``Timestamp`` parts.

``DateTime`` has seven ``[null, int]`` segments (year, month, day, hour, minute, second,
millis) and only those the type has are set; a negative TIME negates every segment it sets.
Both records call their fraction ``millis`` but carry microseconds, as Alibaba's SDK reads them
(spec/dts-formats.md 4.3). A DATETIME or TIME column without fractional seconds (fsp 0) leaves
``millis`` null unless the value itself has a fraction.
"""

from __future__ import annotations

import calendar

DateTimeParts = tuple[
    int | None, int | None, int | None, int | None, int | None, int | None, int | None
]

_ZERO_PREFIX = "0000-00-00"
_SECONDS_CACHE_LIMIT = 1 << 14
_seconds: dict[str, int] = {}


def _micros(fraction: str) -> int:
    """``.ffffff`` digits (1 to 6 of them) as microseconds."""
    if not 0 < len(fraction) <= 6 or not fraction.isdigit():
        raise ValueError(f"bad fraction {fraction!r}: want 1 to 6 digits")
    return int(fraction.ljust(6, "0"))


def _check_date(text: str) -> None:
    if text[4:5] != "-" or text[7:8] != "-":
        raise ValueError(f"bad date {text!r}: want 'YYYY-MM-DD'")


def date_parts(value: str) -> DateTimeParts:
    """``YYYY-MM-DD`` -> year, month, day."""
    if len(value) != 10:
        raise ValueError(f"bad date {value!r}: want 'YYYY-MM-DD'")
    _check_date(value)
    return (int(value[0:4]), int(value[5:7]), int(value[8:10]), None, None, None, None)


def datetime_parts(value: str, fsp: int) -> DateTimeParts:
    """``YYYY-MM-DD HH:MM:SS[.ffffff]`` -> every segment (millis only with a fraction)."""
    if len(value) < 19 or value[10] != " " or value[13] != ":" or value[16] != ":":
        raise ValueError(f"bad datetime {value!r}: want 'YYYY-MM-DD HH:MM:SS[.ffffff]'")
    _check_date(value)
    if len(value) > 19:
        if value[19] != ".":
            raise ValueError(f"bad datetime {value!r}: want 'YYYY-MM-DD HH:MM:SS[.ffffff]'")
        micros: int | None = _micros(value[20:])
    else:
        micros = 0 if fsp else None
    return (
        int(value[0:4]),
        int(value[5:7]),
        int(value[8:10]),
        int(value[11:13]),
        int(value[14:16]),
        int(value[17:19]),
        micros,
    )


def time_parts(value: str, fsp: int) -> DateTimeParts:
    """``[-]HH:MM:SS[.ffffff]`` (hours up to 838) -> hour, minute, second[, millis], each
    negated for a negative duration."""
    negative = value.startswith("-")
    clock, dot, fraction = (value[1:] if negative else value).partition(".")
    hours, minutes, seconds = clock.split(":")
    if not (hours.isdigit() and len(minutes) == 2 and len(seconds) == 2):
        raise ValueError(f"bad time {value!r}: want '[-]HH:MM:SS[.ffffff]'")
    micros = _micros(fraction) if dot else (0 if fsp else None)
    sign = -1 if negative else 1
    return (
        None,
        None,
        None,
        sign * int(hours),
        sign * int(minutes),
        sign * int(seconds),
        None if micros is None else sign * micros,
    )


def year_parts(value: int) -> DateTimeParts:
    """YEAR -> year alone (0 is MySQL's zero year)."""
    if type(value) is not int:
        raise TypeError(f"expected an integer year, got {value!r}")
    return (value, None, None, None, None, None, None)


def timestamp_parts(value: str) -> tuple[int, int]:
    """A UTC ``YYYY-MM-DD HH:MM:SS[.ffffff]`` -> (Unix seconds, microseconds); the zero
    timestamp is (0, 0), as MySQL stores it. Seconds are memoised per whole-second text."""
    text, dot, fraction = value.partition(".")
    micros = _micros(fraction) if dot else 0
    seconds = _seconds.get(text)
    if seconds is None:
        seconds = _epoch_seconds(text)
        if len(_seconds) >= _SECONDS_CACHE_LIMIT:
            _seconds.clear()
        _seconds[text] = seconds
    return seconds, micros


def _epoch_seconds(text: str) -> int:
    if text.startswith(_ZERO_PREFIX):
        return 0
    if len(text) != 19 or text[10] != " " or text[13] != ":" or text[16] != ":":
        raise ValueError(f"bad timestamp {text!r}: want 'YYYY-MM-DD HH:MM:SS[.ffffff]'")
    _check_date(text)
    return calendar.timegm(
        (
            int(text[0:4]),
            int(text[5:7]),
            int(text[8:10]),
            int(text[11:13]),
            int(text[14:16]),
            int(text[17:19]),
        )
    )
