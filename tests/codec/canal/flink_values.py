"""Flink column types for tisink columns and the comparable form of a value on both sides: the
feed's (what TiDB holds) and Flink's (what its ``canal-json`` format parsed, cast to STRING)."""

from __future__ import annotations

import datetime
import json
from decimal import Decimal
from typing import Any

from tisink.codec.values import binary_bytes, enum_index, set_bitmask, to_float32
from tisink.model.table import ColumnInfo

_INTS = {
    ("tinyint", False): "TINYINT",
    ("tinyint", True): "SMALLINT",
    ("smallint", False): "SMALLINT",
    ("smallint", True): "INT",
    ("mediumint", False): "INT",
    ("mediumint", True): "INT",
    ("int", False): "INT",
    ("int", True): "BIGINT",
    ("bigint", False): "BIGINT",
    ("bigint", True): "DECIMAL(20, 0)",
}


def flink_type(column: ColumnInfo) -> str:
    """The Flink SQL type a consumer declares for the column (STRING where no Flink type reads
    canal's text: binary as ISO-8859-1, TIME beyond 24 h, JSON and VECTOR)."""
    name = column.mysql_type
    if (name, column.unsigned) in _INTS:
        return _INTS[(name, column.unsigned)]
    if name == "float":
        return "FLOAT"
    if name == "double":
        return "DOUBLE"
    if name == "decimal":
        return f"DECIMAL({column.length or 10}, {max(column.decimal, 0)})"
    if name == "date":
        return "DATE"
    if name in ("datetime", "timestamp"):
        return f"TIMESTAMP({max(column.decimal, 0)})"
    if name in ("year", "enum"):
        return "INT"
    if name in ("set", "bit"):
        return "DECIMAL(20, 0)"
    return "STRING"


def _datetime(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text)


def _vector(values: list[Any]) -> tuple[float, ...]:
    return tuple(to_float32(float(x)) for x in values)


def from_flink(column: ColumnInfo, text: str | None) -> Any:
    """Flink's STRING cast of a parsed value, comparable with ``from_feed``."""
    if text is None:
        return None
    kind = flink_type(column)
    if kind in ("TINYINT", "SMALLINT", "INT", "BIGINT", "DECIMAL(20, 0)"):
        return int(Decimal(text))
    if kind == "FLOAT":
        return to_float32(float(text))
    if kind == "DOUBLE":
        return float(text)
    if kind.startswith("DECIMAL"):
        return Decimal(text)
    if kind.startswith("TIMESTAMP"):
        return _datetime(text)
    if column.mysql_type == "json":
        return json.loads(text)
    if column.mysql_type == "vector":  # "[a,b]": float() keeps the sign of "-0"
        return _vector(text.strip("[]").split(",") if text != "[]" else [])
    return text


def from_feed(column: ColumnInfo, value: Any) -> Any:
    """A feed value (spec/feed-format.md) as ``from_flink`` gives it back."""
    if value is None:
        return None
    name = column.mysql_type
    if name == "float":
        return to_float32(float(value))
    if name == "double":
        return float(value)
    if name == "decimal":
        return Decimal(value)
    if name in ("datetime", "timestamp"):
        return _datetime(value)
    if name == "enum":
        return enum_index(column, value)
    if name == "set":
        return set_bitmask(column, value)
    if name == "json":
        return json.loads(json.dumps(value))
    if name == "vector":
        return _vector(value)
    if column.binary:
        return binary_bytes(column, value).decode("latin-1")
    if isinstance(value, str):
        return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in value)
    return value
