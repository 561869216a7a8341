"""The value record each feed value should decode to, worked out without the encoder.

Written from the type table of the seed (seeds/003) and spec/dts-formats.md 4.3 with the
standard library's own parsers (``datetime``, ``re``, ``base64``), so a shared mistake in the
codec's parsing cannot hide. FLOAT is compared as float32, since several doubles are the same
stored FLOAT.
"""

from __future__ import annotations

import base64
import datetime
import re
import struct
from typing import Any

from tisink.codec.values import json_text, vector_text
from tisink.model.mysqltypes import DEFAULT_LENGTH, INTEGER_RANGES
from tisink.model.table import ColumnInfo

_TIME = re.compile(r"(-?)(\d+):(\d\d):(\d\d)(?:\.(\d{1,6}))?")
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
_NONE7 = dict.fromkeys(("year", "month", "day", "hour", "minute", "second", "millis"))


def _segments(**given: int | None) -> dict[str, int | None]:
    return {**_NONE7, **given}


def expected_item(column: ColumnInfo, value: Any) -> dict[str, Any] | None:
    """The decoded union item (fastavro's plain dict) of ``value`` in ``column``."""
    if value is None:
        return None
    t = column.mysql_type
    if t in INTEGER_RANGES:
        width = column.length or DEFAULT_LENGTH[(t, column.unsigned)]
        return {"precision": width, "value": str(value)}
    if t == "bit":
        return {"precision": column.length or 1, "value": str(value)}
    if t in ("float", "double"):
        width = column.length or DEFAULT_LENGTH[(t, column.unsigned)]
        return {"value": float(value), "precision": width, "scale": column.decimal}
    if t == "decimal":
        return {"value": value, "precision": column.length or 10, "scale": column.decimal}
    if column.family.value == "string":
        return {"charset": column.charset, "value": value.encode("utf-8")}
    if column.family.value == "binary":
        raw = base64.b64decode(value)
        if t == "binary":
            raw = raw.ljust(column.length, b"\0")
        label = "BINARY" if t in ("binary", "varbinary") else "BLOB"
        return {"type": label, "value": raw}
    if t == "date":
        day = datetime.date.fromisoformat(value)
        return _segments(year=day.year, month=day.month, day=day.day)
    if t == "datetime":
        moment = datetime.datetime.fromisoformat(value)
        fraction = moment.microsecond if column.decimal or "." in value else None
        return _segments(
            year=moment.year,
            month=moment.month,
            day=moment.day,
            hour=moment.hour,
            minute=moment.minute,
            second=moment.second,
            millis=fraction,
        )
    if t == "timestamp":
        moment = datetime.datetime.fromisoformat(value).replace(tzinfo=datetime.UTC)
        seconds = (moment - _EPOCH) // datetime.timedelta(seconds=1)
        return {"timestamp": seconds, "millis": moment.microsecond}
    if t == "time":
        return _time(column, value)
    if t == "year":
        return _segments(year=value)
    if t == "enum":
        return {"type": "ENUM", "value": value}
    if t == "set":
        return {"type": "SET", "value": ",".join(e for e in column.elements if e in value)}
    if t == "json":
        return {"type": "JSON", "value": json_text(value)}
    assert t == "vector"
    return {"type": "VECTOR", "value": vector_text(value)}


def _time(column: ColumnInfo, value: str) -> dict[str, Any]:
    match = _TIME.fullmatch(value)
    assert match, value
    sign = -1 if match[1] else 1
    micros = int(match[5].ljust(6, "0")) if match[5] else (0 if column.decimal else None)
    return _segments(
        hour=sign * int(match[2]),
        minute=sign * int(match[3]),
        second=sign * int(match[4]),
        millis=None if micros is None else sign * micros,
    )


def same_item(column: ColumnInfo, decoded: Any, expected: Any) -> bool:
    """Equality, FLOAT compared as the float32 it stores."""
    if column.mysql_type == "float" and decoded is not None and expected is not None:
        f32 = struct.Struct("<f")
        same_float = f32.pack(decoded["value"]) == f32.pack(expected["value"])
        rest = {k: v for k, v in decoded.items() if k != "value"}
        return same_float and rest == {k: v for k, v in expected.items() if k != "value"}
    return bool(decoded == expected)
