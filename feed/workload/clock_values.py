"""Seeded DATE, DATETIME/TIMESTAMP and TIME draws, as source text (see ``values``).

They draw a second of the span (or an hour, a minute and a second) and the fraction's digits,
and write the text from tables: the date of every day of the spans (made once, on first use),
the clock from per-minute texts.
"""

from __future__ import annotations

import datetime

from tisink.feed.workload.draws import ColumnCode, below_code
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo

DATE_SPAN = (0, 2_145_916_799)
"""1970-01-01 .. 2037-12-31 in seconds, valid for date and datetime."""
TIMESTAMP_SPAN = (1, 2_147_483_647)
"""TiDB's TIMESTAMP range in UTC."""
_TWO_DIGITS = tuple(f"{n:02d}" for n in range(100))
_CLOCK = tuple(f" {h:02d}:{m:02d}:" for h in range(24) for m in range(60))
"""`` HH:MM:`` of each minute of a day, after the date."""
_HOURS = tuple(f"{'-' if h < 0 else ''}{abs(h):02d}:" for h in range(-838, 839))
"""``[-]HH:`` of each hour of a TIME, from -838."""
_MINUTES = tuple(f"{m:02d}:" for m in range(60))
_DAYS: list[str] = []
"""``YYYY-MM-DD`` of each day since 1970 up to the end of the TIMESTAMP span."""


def _day_texts() -> list[str]:
    if not _DAYS:
        first = datetime.date(1970, 1, 1).toordinal()
        last = TIMESTAMP_SPAN[1] // 86400
        _DAYS.extend(datetime.date.fromordinal(first + day).isoformat() for day in range(last + 1))
    return _DAYS


def _offset(when: str, low: int) -> str:
    """The second ``low + when`` as an expression."""
    return f"({when} + {low})" if low else when


def _fraction(v: str, fsp: int) -> list[str]:
    """Appends ``.`` and a number below ``10**fsp`` zero-padded to ``fsp`` digits, if any."""
    if not fsp:
        return []
    fractions = 10**fsp
    return [*below_code(f"{v}_f", fractions), f'{v} += "." + str({v}_f + {fractions})[1:]']


def datetime_code(col: ColumnInfo, size: tuple[int, int] | None, v: str) -> ColumnCode:
    """A DATETIME or TIMESTAMP: a second of its span, then the fraction (``decimal`` digits)."""
    low, high = TIMESTAMP_SPAN if col.family is TypeFamily.TIMESTAMP else DATE_SPAN
    when, day, second = f"{v}_w", f"{v}_d", f"{v}_s"
    lines = [
        *below_code(when, high - low + 1),
        f"{day}, {second} = divmod({_offset(when, low)}, 86400)",
        f"{v} = DAYS[{day}] + CLOCK[{second} // 60] + TWO_DIGITS[{second} % 60]",
        *_fraction(v, col.decimal),
    ]
    return ColumnCode(lines, {"DAYS": _day_texts(), "CLOCK": _CLOCK, "TWO_DIGITS": _TWO_DIGITS})


def date_code(col: ColumnInfo, size: tuple[int, int] | None, v: str) -> ColumnCode:
    """A DATE: the day of a second of the date span."""
    low, high = DATE_SPAN
    when = f"{v}_w"
    lines = [*below_code(when, high - low + 1), f"{v} = DAYS[{_offset(when, low)} // 86400]"]
    return ColumnCode(lines, {"DAYS": _day_texts()})


def time_code(col: ColumnInfo, size: tuple[int, int] | None, v: str) -> ColumnCode:
    """A TIME in -838:59:59 .. 838:59:59: hour, minute, second, then the fraction."""
    hour, minute, second = f"{v}_h", f"{v}_m", f"{v}_s"
    lines = [
        *below_code(hour, 1677),  # -838 .. 838
        *below_code(minute, 60),
        *below_code(second, 60),
        f"{v} = HOURS[{hour}] + MINUTES[{minute}] + TWO_DIGITS[{second}]",
        *_fraction(v, col.decimal),
    ]
    return ColumnCode(lines, {"HOURS": _HOURS, "MINUTES": _MINUTES, "TWO_DIGITS": _TWO_DIGITS})
