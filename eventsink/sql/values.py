"""Feed values as every dialect stores them, before each dialect's own choices.

Row images hold values in the feed's form (``spec/feed-format.md``, "Values"). What no database
takes as it comes is converted the same way everywhere: binary strings from base64 to bytes,
SET from a list of member names to the names joined by commas (as MySQL prints it), JSON and
VECTOR to compact JSON text, DECIMAL kept as its exact text. A dialect adds its own conversions
on top (SQLite: wide unsigned integers as text) and chooses the column types.
"""

from __future__ import annotations

import binascii
import json
from collections.abc import Callable
from typing import Any

from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo

Convert = Callable[[Any], Any]


def json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def set_text(value: Any) -> str:
    if isinstance(value, str):
        raise TypeError(f"a SET value is a list of member names, got {value!r}")
    return ",".join(value)


def number_text(value: Any) -> str:
    return value if type(value) is str else str(value)


def to_bytes(value: Any) -> bytes:
    return binascii.a2b_base64(value, strict_mode=True)


def common_converter(col: ColumnInfo) -> Convert | None:
    """Feed value -> database value for the non-NULL values of ``col`` that no database takes
    as they come; None for those stored as they are (integers, floats, text)."""
    family = col.family
    if family is TypeFamily.DECIMAL:
        return number_text
    if family is TypeFamily.BINARY:
        return to_bytes
    if family is TypeFamily.SET:
        return set_text
    if family in (TypeFamily.JSON, TypeFamily.VECTOR):
        return json_text
    return None


def text_literal(text: str) -> str:
    """A string as an SQL literal (standard quoting)."""
    return "'" + text.replace("'", "''") + "'"
