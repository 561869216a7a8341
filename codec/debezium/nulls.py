"""What a NULL column value is written as (TiCDC v8.5.2+): the column's DEFAULT as a value.

Kafka Connect's ``JsonConverter`` replaces nulls with the schema default too
(``replace.null.with.default``), so TiCDC writes the DEFAULT in the first place; a column
without one writes null. Computed once per column and table version.
"""

from __future__ import annotations

import binascii
import datetime
from typing import Any

from tisink.codec.debezium import temporal
from tisink.codec.debezium.values import converter_for
from tisink.codec.values import bit_default_number
from tisink.codec.values.checks import VALUE_ERRORS
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo


def null_value_for(column: ColumnInfo, tz: datetime.tzinfo) -> Any:
    """What a NULL of ``column`` is written as: its DEFAULT as a value, else None. Computed once
    per table version; a DEFAULT that cannot be read as a value of the column gives None."""
    default = column.default
    if default is None:
        return None
    try:
        return _default_value(column, default, tz)
    except VALUE_ERRORS:
        return None


def _default_value(column: ColumnInfo, default: Any, tz: datetime.tzinfo) -> Any:
    """TiCDC's ``getValueFromDefault`` then the value rules; where TiCDC would hit a Go type
    assertion (DATE, TIME, VECTOR defaults) the DEFAULT text is read as a feed value instead."""
    family = column.family
    text = default if isinstance(default, str) else str(default)
    if family is TypeFamily.BIT:
        return converter_for(column)(bit_default_number(default))
    if family in (TypeFamily.INT, TypeFamily.BIGINT, TypeFamily.YEAR):
        return converter_for(column)(int(text, 10))
    if family in (TypeFamily.FLOAT, TypeFamily.DOUBLE):
        return converter_for(column)(float(text))
    if family is TypeFamily.BINARY:
        # The DEFAULT is the column's raw bytes, not base64 text.
        return binascii.b2a_base64(text.encode(), newline=False).decode()
    if family is TypeFamily.SET:
        return converter_for(column)(text)
    if family is TypeFamily.ENUM:
        return text if text in column.elements else ""
    if family is TypeFamily.DATETIME:
        return _datetime_default_value(column, text)
    if family is TypeFamily.TIMESTAMP:
        return _timestamp_default_value(column, text, tz)
    if family in (TypeFamily.JSON, TypeFamily.VECTOR):
        return text
    return converter_for(column)(text)


def _datetime_default_value(column: ColumnInfo, text: str) -> Any:
    """A DATETIME DEFAULT as the value: CURRENT_TIMESTAMP is 0, the text is rounded to fsp."""
    if text.upper() == "CURRENT_TIMESTAMP":
        return 0
    micros = temporal.default_micros(text, column.decimal)
    if micros is None:
        return 0 if not column.nullable else None
    return micros // 1000 if column.decimal <= 3 else micros


def _timestamp_default_value(column: ColumnInfo, text: str, tz: datetime.tzinfo) -> Any:
    """A TIMESTAMP DEFAULT read in the changefeed's zone (``StrToDateTime`` then ``GoTime(tz)``)
    and written in UTC; CURRENT_TIMESTAMP is the epoch when NOT NULL, else null."""
    if text.upper() == "CURRENT_TIMESTAMP":
        return None if column.nullable else temporal.ZERO_ZONED
    micros = temporal.default_micros(text, column.decimal)
    if micros is None:
        raise ValueError(f"bad TIMESTAMP default {text!r}")
    wall = temporal.micros_text(micros)
    if wall < "1970-01-01 00:00:01":
        return None
    local = datetime.datetime.fromisoformat(wall).replace(tzinfo=tz)
    utc = local.astimezone(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    return temporal.zoned_timestamp(utc, column.decimal)
