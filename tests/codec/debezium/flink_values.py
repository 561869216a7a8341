"""Flink column types for tisink columns as Debezium JSON carries them, and the comparable form
of a value on both sides: the feed's (what TiDB holds) and Flink's (what its ``debezium-json``
format parsed, cast to STRING by ``flink_job.py``).

Debezium's units (spec/debezium.md section 2) decide the Flink type a consumer declares: DATE
as days (INT), DATETIME as epoch ms or µs and TIME as µs (BIGINT), DECIMAL as a double
(``decimal.handling.mode=double``), BINARY and BIT(n > 1) as base64 (BYTES), BIT(1) as a
boolean, TIMESTAMP as ``io.debezium.time.ZonedTimestamp`` text (TIMESTAMP_LTZ, read with
``debezium-json.timestamp-format.standard=ISO-8601``), ENUM and SET as their names. The types
that read the same text as canal-json's (integers but BIGINT UNSIGNED, FLOAT, DOUBLE, strings,
JSON, VECTOR) go through ``tests/codec/canal/flink_values.py``.
"""

from __future__ import annotations

import datetime
from typing import Any

from tests.codec.canal import flink_values as canal
from tisink.codec.values import binary_bytes, set_names
from tisink.model.table import ColumnInfo

_EPOCH = datetime.datetime(1970, 1, 1)
_EPOCH_DAY = datetime.date(1970, 1, 1)
_INT64 = 1 << 63
_TEXT_DEFAULTS = frozenset({"enum", "char", "varchar", "tinytext", "text"})


def flink_type(column: ColumnInfo) -> str:
    """The Flink SQL type a consumer declares for the column's Debezium value."""
    name = column.mysql_type
    if name == "bigint" and column.unsigned:
        return "BIGINT"  # Debezium's int64, values above 2^63 - 1 wrapped
    if name == "decimal":
        return "DOUBLE"
    if name == "date":
        return "INT"
    if name in ("datetime", "time"):
        return "BIGINT"
    if name == "timestamp":
        return f"TIMESTAMP_LTZ({max(column.decimal, 0)})"
    if name == "bit":
        return "BOOLEAN" if (column.length or 1) == 1 else "BYTES"
    if column.binary:
        return "BYTES"
    if name in ("enum", "set"):
        return "STRING"
    return canal.flink_type(column)


def from_flink(column: ColumnInfo, text: str | None) -> Any:
    """Flink's STRING form of a parsed value, comparable with ``from_feed``."""
    if text is None:
        return None
    kind = flink_type(column)
    if kind in ("INT", "BIGINT"):
        return int(text)
    if kind == "DOUBLE":
        return float(text)
    if kind == "BOOLEAN":
        return text.upper() == "TRUE"
    if kind.startswith("TIMESTAMP_LTZ"):
        return datetime.datetime.fromisoformat(text)
    if kind == "BYTES" or column.mysql_type in ("enum", "set"):
        return text
    return canal.from_flink(column, text)


def _micros(moment: datetime.datetime) -> int:
    return (moment - _EPOCH) // datetime.timedelta(microseconds=1)


def _time_micros(text: str) -> int:
    """``[-]H...H:MM:SS[.f]`` as signed microseconds."""
    sign = -1 if text.startswith("-") else 1
    clock, _, fraction = text.lstrip("-").partition(".")
    hours, minutes, seconds = (int(part) for part in clock.split(":"))
    micro = int((fraction + "000000")[:6])
    return sign * ((hours * 3600 + minutes * 60 + seconds) * 1_000_000 + micro)


def _default(column: ColumnInfo) -> Any:
    """The column's DEFAULT as a feed value, for the types whose DEFAULT text is one (the
    workloads' defaults); ValueError for another type, rather than a wrong expectation."""
    default = column.default
    if default is None:
        return None
    if column.mysql_type in _TEXT_DEFAULTS:
        return str(default)
    if column.mysql_type in ("tinyint", "smallint", "mediumint", "int", "bigint", "year"):
        return int(default)
    raise ValueError(f"no rule here for the DEFAULT of a {column.mysql_type} column")


def from_feed(column: ColumnInfo, value: Any) -> Any:
    """A feed value (spec/feed-format.md) as ``from_flink`` gives it back; a NULL as the
    column's DEFAULT, which TiCDC v8.5.2+ writes in its place (codec/debezium/nulls.py)."""
    if value is None:
        value = _default(column)
        if value is None:
            return None
    name = column.mysql_type
    if name in ("tinyint", "smallint", "mediumint", "int", "bigint", "year"):
        return value - (1 << 64) if value >= _INT64 else value
    if name == "decimal":
        return float(value)
    if name == "date":
        return (datetime.date.fromisoformat(value) - _EPOCH_DAY).days
    if name == "datetime":
        micros = _micros(datetime.datetime.fromisoformat(value))
        return micros if column.decimal > 3 else micros // 1000
    if name == "time":
        return _time_micros(value)
    if name == "timestamp":
        return datetime.datetime.fromisoformat(value)
    if name == "bit":
        if (column.length or 1) == 1:
            return value != 0
        size = (column.length + 7) // 8
        return value.to_bytes(8, "little")[:size].decode("latin-1")
    if column.binary:
        return binary_bytes(column, value).decode("latin-1")
    if name == "enum":
        return value
    if name == "set":
        return set_names(column)(value)
    return canal.from_feed(column, value)
