"""A column value as the text TiDB prints, for the families canal-json and CSV write alike
(integers, YEAR and BIT in decimal; DECIMAL, strings, dates and times as given; TIMESTAMP in
the changefeed's zone; JSON as TiDB's text; VECTOR as ``[a,b,...]``). Floats, binary columns,
ENUM and SET are each protocol's own."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from tisink.codec.values.checks import (
    TEXT_FAMILIES,
    as_text,
    bit_text,
    decimal_text,
    integer_text,
    vector_list_text,
)
from tisink.codec.values.json_text import json_text
from tisink.codec.values.zones import timestamp_texts
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo

_INTEGERS = (TypeFamily.INT, TypeFamily.BIGINT, TypeFamily.YEAR)


def tidb_text(column: ColumnInfo, tz: datetime.tzinfo) -> Callable[[Any], str] | None:
    """The checking text converter of ``column``; None for the families not listed above."""
    family = column.family
    if family in _INTEGERS:
        return integer_text
    if family is TypeFamily.BIT:
        return bit_text
    if family is TypeFamily.DECIMAL:
        return decimal_text
    if family in TEXT_FAMILIES:
        return as_text
    if family is TypeFamily.TIMESTAMP:
        texts = timestamp_texts(tz)
        return lambda v: texts(as_text(v))
    if family is TypeFamily.JSON:
        return json_text
    if family is TypeFamily.VECTOR:
        return vector_list_text
    return None
