"""Seeded DATE, DATETIME/TIMESTAMP and TIME values (the feed's text forms).

They draw what ``rng.randint(low, high)`` (seconds since 1970, or hours), ``randrange(60)``
and ``randrange(10**fsp)`` would, and write the text from tables: the date of a day is
worked out once (``time.gmtime``) and kept, the clock comes from per-minute texts.
"""

from __future__ import annotations

import random
import time

from tisink.feed.workload.draws import ValueGen, below_of
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo

DATE_SPAN = (0, 2_145_916_799)
"""1970-01-01 .. 2037-12-31 in seconds, valid for date and datetime."""
TIMESTAMP_SPAN = (1, 2_147_483_647)
"""TiDB's TIMESTAMP range in UTC."""
_TWO_DIGITS = tuple(f"{n:02d}" for n in range(100))
_CLOCK = tuple(f"{h:02d}:{m:02d}:" for h in range(24) for m in range(60))
"""``HH:MM:`` of each minute of a day."""
_HOURS = tuple(f"{'-' if h < 0 else ''}{abs(h):02d}:" for h in range(-838, 839))
"""``[-]HH:`` of each hour of a TIME, from -838."""
_DAY_TEXT: dict[int, str] = {}
"""``YYYY-MM-DD`` of each day since 1970 met so far (at most about 25,000 of them)."""


def _day_text(day: int) -> str:
    t = time.gmtime(day * 86400)
    text = _DAY_TEXT[day] = f"{t.tm_year:04d}-{t.tm_mon:02d}-{t.tm_mday:02d}"
    return text


def datetime_generator(col: ColumnInfo, size: tuple[int, int] | None) -> ValueGen:
    """A DATETIME or TIMESTAMP: a second of its span, then the fraction (``decimal`` digits)."""
    low, high = TIMESTAMP_SPAN if col.family is TypeFamily.TIMESTAMP else DATE_SPAN
    seconds = high - low + 1
    second_bits = seconds.bit_length()
    fsp = col.decimal
    fractions = 10**fsp
    fraction_bits = fractions.bit_length()
    days, clock, two_digits = _DAY_TEXT, _CLOCK, _TWO_DIGITS

    def gen(rng: random.Random) -> str:
        bits = rng.getrandbits
        when = bits(second_bits)  # rng.randint(low, high), then rng.randrange(fractions)
        while when >= seconds:
            when = bits(second_bits)
        day, second = divmod(low + when, 86400)
        text = (days.get(day) or _day_text(day)) + " " + clock[second // 60]
        text += two_digits[second % 60]
        if not fsp:
            return text
        fraction = bits(fraction_bits)
        while fraction >= fractions:
            fraction = bits(fraction_bits)
        return text + "." + str(fraction + fractions)[1:]  # zero-padded to fsp digits

    return gen


def date_generator(col: ColumnInfo, size: tuple[int, int] | None) -> ValueGen:
    """A DATE: the day of a second of the date span."""
    low, high = DATE_SPAN
    when = below_of(high - low + 1)

    def gen(rng: random.Random) -> str:
        day = (low + when(rng)) // 86400
        return _DAY_TEXT.get(day) or _day_text(day)

    return gen


def time_generator(col: ColumnInfo, size: tuple[int, int] | None) -> ValueGen:
    """A TIME in -838:59:59 .. 838:59:59: hour, minute, second, then the fraction."""
    fsp = col.decimal
    fractions = 10**fsp
    fraction_bits = fractions.bit_length()
    hours, two_digits = _HOURS, _TWO_DIGITS

    def gen(rng: random.Random) -> str:
        bits = rng.getrandbits
        hour = bits(11)  # rng.randint(-838, 838): 1677 values
        while hour >= 1677:
            hour = bits(11)
        minute = bits(6)  # rng.randrange(60) twice, then rng.randrange(fractions)
        while minute >= 60:
            minute = bits(6)
        second = bits(6)
        while second >= 60:
            second = bits(6)
        text = hours[hour] + two_digits[minute] + ":" + two_digits[second]
        if not fsp:
            return text
        fraction = bits(fraction_bits)
        while fraction >= fractions:
            fraction = bits(fraction_bits)
        return text + "." + str(fraction + fractions)[1:]

    return gen
