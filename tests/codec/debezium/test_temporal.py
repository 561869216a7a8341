"""Go-semantics date arithmetic and Debezium's schema names."""

from __future__ import annotations

import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tisink.codec.debezium import temporal
from tisink.codec.debezium.names import sanitize_name, sanitize_topic_name, schema_topic_name

EPOCH = datetime.date(1970, 1, 1)


@given(st.dates(min_value=datetime.date(100, 1, 1)))
def test_civil_days_agree_with_the_proleptic_calendar(day: datetime.date) -> None:
    assert temporal.civil_days(day.year, day.month, day.day) == (day - EPOCH).days
    assert temporal.date_days(day.isoformat()) == (day - EPOCH).days


@given(st.integers(0, 9999), st.integers(0, 13), st.integers(0, 32))
def test_civil_days_reject_what_is_not_on_the_calendar(year: int, month: int, day: int) -> None:
    try:
        # year 0 is a leap year, like year 2000 (400 years later)
        valid = datetime.date(year or 2000, month, day) is not None
    except ValueError:
        valid = False
    assert (temporal.civil_days(year, month, day) is not None) == valid


def test_year_zero_exists_and_two_digit_years_shift() -> None:
    assert temporal.civil_days(0, 1, 1) == temporal.civil_days(2000, 1, 1) - 730485
    assert temporal.date_days("0000-02-29") == (datetime.date(2000, 2, 29) - EPOCH).days
    assert temporal.date_days("0070-01-01") == 0


@given(st.datetimes(min_value=datetime.datetime(100, 1, 1)), st.integers(0, 6))
def test_datetime_value_is_epoch_time_of_the_wall_clock(
    moment: datetime.datetime, fsp: int
) -> None:
    micros = (moment - datetime.datetime(1970, 1, 1)) // datetime.timedelta(microseconds=1)
    text = moment.isoformat(sep=" ", timespec="microseconds")
    assert temporal.datetime_value(text, fsp) == (micros // 1000 if fsp <= 3 else micros)
    parts = temporal.parse_datetime(text)
    assert parts == (*moment.timetuple()[:6], moment.microsecond)


@given(st.integers(-838 * 3600 - 3599, 838 * 3600 + 3599), st.integers(0, 999_999))
def test_time_micros_round_trip(seconds: int, micro: int) -> None:
    sign = "-" if seconds < 0 else ""
    hours, rest = divmod(abs(seconds), 3600)
    text = f"{sign}{hours:02d}:{rest // 60:02d}:{rest % 60:02d}.{micro:06d}"
    total = abs(seconds) * 1_000_000 + micro
    assert temporal.time_micros(text) == (-total if sign else total)


def test_default_micros_round_half_up_to_fsp() -> None:
    base = temporal.default_micros("2023-11-30 12:34:56", 6)
    assert base is not None
    assert temporal.default_micros("2023-11-30 12:34:56.5", 0) == base + 1_000_000
    assert temporal.default_micros("2023-11-30 12:34:56.123456", 4) == base + 123_500
    assert temporal.default_micros("not a time", 0) is None


@pytest.mark.parametrize(
    ("cluster", "db", "table", "expected"),
    [
        ("default", "1A.B", "columnNameWith中文", "default._1A_B.columnNameWith__"),
        ("test-cluster", "test", "table1", "test_cluster.test.table1"),
        ("c", "-x", "a.b-c", "c._x.a.b_c"),
    ],
)
def test_schema_names_are_sanitized(cluster: str, db: str, table: str, expected: str) -> None:
    """TiCDC's ``TestGetSchemaTopicName`` case first."""
    assert schema_topic_name(cluster, db, table) == expected


def test_sanitize_rules() -> None:
    assert sanitize_name("9lives") == "_9lives"
    assert sanitize_name("ok_Name1") == "ok_Name1"
    assert sanitize_topic_name("1.x") == "1.x"
