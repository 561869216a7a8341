"""Per-column value checks for row images (spec/feed-format.md, "Values").

``compile_check`` turns a ColumnInfo into one small closure, built once per schema version, so
the per-row cost is a dict lookup and a call. A check returns None for a good value and the
reason otherwise; NULL is handled by the caller (it depends only on ``nullable``).
"""

from __future__ import annotations

import binascii
import json
import re
from collections.abc import Callable
from typing import Any

import orjson

from tisink.model.mysqltypes import DEFAULT_LENGTH, INTEGER_RANGES, TypeFamily
from tisink.model.table import ColumnInfo

Check = Callable[[Any], str | None]

FLOAT32_MAX = 3.4028234663852886e38
MAX_TIME_HOURS = 838
_DECIMAL = re.compile(r"-?(\d+)(?:\.(\d+))?")
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_DATETIME = re.compile(r"(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?")
_TIME = re.compile(r"-?(\d{2,3}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?")
# TiDB's TIMESTAMP range in UTC; the zero value is allowed besides it.
_TIMESTAMP_MIN = "1970-01-01 00:00:01"
_TIMESTAMP_MAX = "2038-01-19 03:14:07"
_TIMESTAMP_ZERO = "0000-00-00 00:00:00"


def show(value: Any) -> str:
    """A value as it looked in the feed (JSON), shortened for an error message. The stdlib
    writes what orjson refuses (an integer beyond 64 bits, re-read as written)."""
    try:
        text = orjson.dumps(value).decode()
    except TypeError:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= 60 else text[:57] + "..."


def type_name(col: ColumnInfo) -> str:
    return f"{col.mysql_type} unsigned" if col.unsigned else col.mysql_type


def _is_number(value: Any) -> bool:
    kind = type(value)
    return kind is int or kind is float


def _integer(col: ColumnInfo) -> Check:
    signed_min, signed_max, unsigned_max = INTEGER_RANGES[col.mysql_type]
    lo, hi = (0, unsigned_max) if col.unsigned else (signed_min, signed_max)
    name = type_name(col)

    def check(value: Any) -> str | None:
        if type(value) is int:
            return None if lo <= value <= hi else f"{value} out of range for {name}"
        if type(value) is float and abs(value) >= 2**63:
            # orjson reads integers beyond 64 bits as floats
            return f"{show(value)} out of range for {name}"
        return f"{show(value)} is not an integer ({name})"

    return check


def _year(value: Any) -> str | None:
    if type(value) is not int:
        return f"{show(value)} is not an integer (year)"
    return None if value == 0 or 1901 <= value <= 2155 else f"{value} out of range for year"


def _bit(col: ColumnInfo) -> Check:
    bits = col.length or 1
    limit = 1 << bits

    def check(value: Any) -> str | None:
        if type(value) is not int:
            return f"{show(value)} is not an unsigned integer (bit({bits}))"
        return None if 0 <= value < limit else f"{value} does not fit bit({bits})"

    return check


def _floating(col: ColumnInfo) -> Check:
    limit = FLOAT32_MAX if col.mysql_type == "float" else float("inf")
    floor = 0 if col.unsigned else -limit
    name = type_name(col)

    def check(value: Any) -> str | None:
        if not _is_number(value):
            return f"{show(value)} is not a number ({name})"
        return None if floor <= value <= limit else f"{value} out of range for {name}"

    return check


def _decimal(col: ColumnInfo) -> Check:
    precision = col.length or DEFAULT_LENGTH[("decimal", False)]
    scale = col.decimal
    name = f"decimal({precision},{scale})" + (" unsigned" if col.unsigned else "")

    def check(value: Any) -> str | None:
        if type(value) is not str:
            return f"{show(value)} is not a decimal string ({name})"
        match = _DECIMAL.fullmatch(value)
        if match is None:
            return f"{show(value)} is not a decimal ({name})"
        if col.unsigned and value.startswith("-"):
            return f"{show(value)} is negative for {name}"
        whole, fraction = match.group(1).lstrip("0"), match.group(2) or ""
        if len(fraction) > scale:
            return f"{show(value)} has more than {scale} fraction digits ({name})"
        if len(whole) > precision - scale:
            return f"{show(value)} out of range for {name}"
        return None

    return check


def _string(col: ColumnInfo) -> Check:
    limit = col.length
    in_chars = col.mysql_type in ("char", "varchar")
    name = f"{col.mysql_type}({limit})" if in_chars else col.mysql_type

    def check(value: Any) -> str | None:
        if type(value) is not str:
            return f"{show(value)} is not a string ({name})"
        if limit and len(value) * (1 if in_chars else 4) > limit:
            size = len(value) if in_chars else len(value.encode())
            if size > limit:
                unit = "characters" if in_chars else "bytes"
                return f"{size} {unit} do not fit {name}"
        return None

    return check


def _binary(col: ColumnInfo) -> Check:
    limit = col.length
    name = f"{col.mysql_type}({limit})" if limit else col.mysql_type

    def check(value: Any) -> str | None:
        if type(value) is not str:
            return f"{show(value)} is not a base64 string ({name})"
        try:
            data = binascii.a2b_base64(value, strict_mode=True)
        except (binascii.Error, ValueError):
            return f"{show(value)} is not padded standard base64 ({name})"
        if limit and len(data) > limit:
            return f"{len(data)} bytes do not fit {name}"
        return None

    return check


_MONTH_DAYS = (0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _day_fits(year: str, month: str, day: str) -> bool:
    """The day exists in that month (TiDB's strict mode rejects 2023-02-30). Called only for
    days past the 28th, so ordinary values pay two string comparisons."""
    m, d = int(month), int(day)
    if m == 0:
        return True  # zero-in-date values ("2023-00-31") are TiDB's to allow or not
    if m != 2 or d < 29:
        return d <= _MONTH_DAYS[m]
    y = int(year)
    return d == 29 and y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)


def _date(value: Any) -> str | None:
    if type(value) is not str or (match := _DATE.fullmatch(value)) is None:
        return f"{show(value)} is not a date (YYYY-MM-DD)"
    year, month, day = match.groups()
    if month > "12" or day > "31" or (day > "28" and not _day_fits(year, month, day)):
        return f"{show(value)} is not a valid date: {year}-{month} has no day {day}"
    return None


def _datetime(col: ColumnInfo) -> Check:
    fsp = col.decimal
    is_timestamp = col.mysql_type == "timestamp"
    name = f"{col.mysql_type}({fsp})" if fsp else col.mysql_type

    def check(value: Any) -> str | None:
        if type(value) is not str or (match := _DATETIME.fullmatch(value)) is None:
            return f"{show(value)} is not a {name} (YYYY-MM-DD HH:MM:SS[.ffffff])"
        year, month, day, hour, minute, second, fraction = match.groups()
        # two-digit fields compare as strings: no int() on the hot path
        if month > "12" or day > "31" or hour > "23" or minute > "59" or second > "59":
            return f"{show(value)} is not a valid {name}"
        if day > "28" and not _day_fits(year, month, day):
            return f"{show(value)} is not a valid {name}: {year}-{month} has no day {day}"
        if fraction and len(fraction) > fsp:
            return f"{show(value)} has more than {fsp} fraction digits ({name})"
        if is_timestamp:
            head = value[:19]
            if head != _TIMESTAMP_ZERO and not _TIMESTAMP_MIN <= head <= _TIMESTAMP_MAX:
                return f"{show(value)} out of range for timestamp (UTC)"
        return None

    return check


def _time(col: ColumnInfo) -> Check:
    fsp = col.decimal
    name = f"time({fsp})" if fsp else "time"

    def check(value: Any) -> str | None:
        if type(value) is not str or (match := _TIME.fullmatch(value)) is None:
            return f"{show(value)} is not a {name} ([-]HH:MM:SS[.ffffff])"
        hours, minutes, seconds, fraction = match.groups()
        if minutes > "59" or seconds > "59":
            return f"{show(value)} is not a valid {name}"
        if fraction and len(fraction) > fsp:
            return f"{show(value)} has more than {fsp} fraction digits ({name})"
        if (int(hours), minutes, seconds, int(fraction or 0)) > (MAX_TIME_HOURS, "59", "59", 0):
            return f"{show(value)} out of range for {name} (±838:59:59)"
        return None

    return check


def _enum(col: ColumnInfo) -> Check:
    members = frozenset(col.elements)

    def check(value: Any) -> str | None:
        if type(value) is not str:
            return f"{show(value)} is not an enum member name"
        return None if value in members else f"{show(value)} is not a member of {_listed(col)}"

    return check


def _set(col: ColumnInfo) -> Check:
    members = frozenset(col.elements)

    def check(value: Any) -> str | None:
        if type(value) is not list:
            return f"{show(value)} is not a list of set member names"
        for name in value:
            if type(name) is not str or name not in members:
                return f"{show(name)} is not a member of {_listed(col)}"
        if len(set(value)) != len(value):
            return f"{show(value)} repeats a member"
        return None

    return check


def _listed(col: ColumnInfo) -> str:
    return f"{col.mysql_type}({','.join(repr(e) for e in col.elements)})"


def _json(value: Any) -> str | None:
    return None


def _vector(value: Any) -> str | None:
    if type(value) is not list or not all(map(_is_number, value)):
        return f"{show(value)} is not a list of numbers (vector)"
    return None


_BUILDERS: dict[TypeFamily, Callable[[ColumnInfo], Check]] = {
    TypeFamily.INT: _integer,
    TypeFamily.BIGINT: _integer,
    TypeFamily.YEAR: lambda col: _year,
    TypeFamily.BIT: _bit,
    TypeFamily.FLOAT: _floating,
    TypeFamily.DOUBLE: _floating,
    TypeFamily.DECIMAL: _decimal,
    TypeFamily.STRING: _string,
    TypeFamily.BINARY: _binary,
    TypeFamily.DATE: lambda col: _date,
    TypeFamily.DATETIME: _datetime,
    TypeFamily.TIMESTAMP: _datetime,
    TypeFamily.TIME: _time,
    TypeFamily.ENUM: _enum,
    TypeFamily.SET: _set,
    TypeFamily.JSON: lambda col: _json,
    TypeFamily.VECTOR: lambda col: _vector,
}


def compile_check(col: ColumnInfo) -> Check:
    """The value check for one column (NULL excluded)."""
    return _BUILDERS[col.family](col)
