"""Issue 44 item 13: fractional seconds past a column's precision are rounded half up as MySQL
stores them, with the carry into seconds, minutes, hours and days; checked against a reference
computed with ``datetime`` and ``Decimal``, whatever form the value comes in."""

from __future__ import annotations

import datetime as dt
from decimal import ROUND_HALF_UP, Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tisink.check.timetext import datetime_text, time_text

MICRO = Decimal("0.000001")
moments = st.datetimes(min_value=dt.datetime(1000, 1, 1), max_value=dt.datetime(9999, 12, 30))
precisions = st.integers(min_value=0, max_value=6)


def reference_datetime(whole: dt.datetime, fraction: Decimal, fsp: int) -> str:
    """``whole`` plus ``fraction`` seconds as MySQL stores it in DATETIME(fsp): rounded to
    microseconds (as a server parses text), then to fsp digits, both half up."""
    seconds = fraction.quantize(MICRO, ROUND_HALF_UP).quantize(
        Decimal(1).scaleb(-fsp), ROUND_HALF_UP
    )
    stamp = whole + dt.timedelta(microseconds=int(seconds / MICRO))
    text = f"{stamp:%Y-%m-%d %H:%M:%S}"
    return text + "." + f"{stamp.microsecond:06d}"[:fsp] if fsp else text


@given(moments, precisions)
def test_datetime_values_round_to_the_precision(value: dt.datetime, fsp: int) -> None:
    whole = value.replace(microsecond=0)
    expected = reference_datetime(whole, Decimal(value.microsecond) * MICRO, fsp)
    assert datetime_text(value, fsp) == expected
    assert datetime_text(value.isoformat(" "), fsp) == expected
    assert datetime_text(value.isoformat("T"), fsp) == expected


@given(moments, st.text("0123456789", min_size=1, max_size=9), precisions)
def test_datetime_text_rounds_any_number_of_digits(
    value: dt.datetime, digits: str, fsp: int
) -> None:
    whole = value.replace(microsecond=0)
    expected = reference_datetime(whole, Decimal("0." + digits), fsp)
    assert datetime_text(f"{whole:%Y-%m-%d %H:%M:%S}.{digits}", fsp) == expected


@given(moments, precisions, st.integers(min_value=-14 * 60, max_value=14 * 60))
def test_zoned_values_round_in_utc(value: dt.datetime, fsp: int, minutes: int) -> None:
    zone = dt.timezone(dt.timedelta(minutes=minutes))
    zoned = value.replace(tzinfo=zone)
    utc = zoned.astimezone(dt.UTC).replace(tzinfo=None)
    expected = reference_datetime(utc.replace(microsecond=0), Decimal(utc.microsecond) * MICRO, fsp)
    assert datetime_text(zoned, fsp) == expected
    assert datetime_text(zoned.isoformat(" "), fsp) == expected


def reference_time(micros: int, fsp: int) -> str:
    """A TIME of ``micros`` microseconds rounded to fsp digits, half away from zero."""
    seconds = (Decimal(micros) * MICRO).quantize(Decimal(1).scaleb(-fsp), ROUND_HALF_UP)
    sign = "-" if seconds < 0 else ""
    whole, fraction = divmod(abs(seconds), 1)
    hours, rest = divmod(int(whole), 3600)
    text = f"{sign}{hours:02d}:{rest // 60:02d}:{rest % 60:02d}"
    return text + "." + f"{fraction:.6f}"[2 : 2 + fsp] if fsp else text


@given(st.integers(min_value=-838 * 3600 * 10**6, max_value=838 * 3600 * 10**6), precisions)
def test_time_values_round_away_from_zero(micros: int, fsp: int) -> None:
    expected = reference_time(micros, fsp)
    value = dt.timedelta(microseconds=micros)
    assert time_text(value, fsp) == expected
    size = abs(micros)
    text = f"{size // 3_600_000_000}:{size // 60_000_000 % 60:02d}:{size // 10**6 % 60:02d}"
    text = f"{'-' if micros < 0 else ''}{text}.{size % 10**6:06d}"
    assert time_text(text, fsp) == expected
    if 0 <= micros < 86_400 * 10**6:
        assert time_text((dt.datetime.min + value).time(), fsp) == expected


@pytest.mark.parametrize(
    ("value", "fsp", "text"),
    [
        ("2024-01-02 03:04:56.9", 0, "2024-01-02 03:04:57"),
        ("2024-01-02 03:04:05.455999", 3, "2024-01-02 03:04:05.456"),
        (dt.datetime(2024, 2, 28, 23, 59, 59, 999_500), 3, "2024-02-29 00:00:00.000"),
        ("2023-12-31T23:59:59.5+00:00", 0, "2024-01-01 00:00:00"),
        ("2024-01-02 03:04:05.4999995", 0, "2024-01-02 03:04:06"),
        ("0000-00-00 00:00:00.4", 0, "0000-00-00 00:00:00"),
        ("0000-00-00 00:00:59.5", 0, "0000-00-00 00:01:00"),
        ("0000-00-00 23:59:59.5", 0, "0000-00-00 23:59:59.5"),
    ],
)
def test_datetime_examples(value: object, fsp: int, text: str) -> None:
    """MySQL's ``:56.9`` -> ``:57``; a text past microseconds is first read at microseconds
    (``.4999995`` -> ``.500000``), as a server parses it; a zero date has no day to carry
    into, so a value that would need one is compared as it was written."""
    assert datetime_text(value, fsp) == text


@pytest.mark.parametrize(
    ("value", "fsp", "text"),
    [
        ("-00:00:00.5", 0, "-00:00:01"),
        ("-00:00:00.4", 0, "00:00:00"),
        (dt.time(23, 59, 59, 600_000), 0, "24:00:00"),
        ("838:59:58.99", 1, "838:59:59.0"),
        ("10:75:00", 0, "10:75:00"),
    ],
)
def test_time_examples(value: object, fsp: int, text: str) -> None:
    assert time_text(value, fsp) == text
