"""Feed values as every dialect stores them, before each dialect's own choices.

Row images hold values in the feed's form (``spec/feed-format.md``, "Values"). What no database
takes as it comes is converted the same way everywhere: binary strings from base64 to bytes,
SET from a list of member names to the names joined by commas (as MySQL prints it), JSON to
compact JSON text, VECTOR to its text as TiDB prints it (``[1,0.5,-2]``: each element rounded
to float32 and written in Go's shortest 'f' form, ``VectorFloat32.String()``, which is also a
JSON array), DECIMAL kept as its exact text. A dialect adds its own conversions
on top (SQLite: wide unsigned integers as text) and chooses the column types.
"""

from __future__ import annotations

import binascii
import json
import math
from collections.abc import Callable
from typing import Any

from tisink.codec.values import to_float32, vector_text
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


def vector_converter(dimensions: int) -> Convert:
    """A VECTOR value (a list of numbers) -> its text as TiDB prints it. What TiDB refuses to
    store is refused here, so the error names the table and column: an element that is no
    number, NaN or infinite (also once rounded to float32), and for ``VECTOR(n)`` a list of
    another length."""

    def convert(value: Any) -> str:
        if type(value) is not list:
            raise TypeError(f"a VECTOR value is a list of numbers, got {type(value).__name__}")
        if dimensions and len(value) != dimensions:
            raise ValueError(f"{len(value)} dimensions, the column is VECTOR({dimensions})")
        for element in value:
            if type(element) not in (int, float):
                raise TypeError(f"a VECTOR element is a number, got {element!r}")
            if not math.isfinite(to_float32(element)):
                raise ValueError(f"a VECTOR element is a finite float32, got {element!r}")
        return vector_text(value)

    return convert


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
    if family is TypeFamily.JSON:
        return json_text
    if family is TypeFamily.VECTOR:
        return vector_converter(col.length if col.length > 0 else 0)
    return None


def text_literal(text: str) -> str:
    """A string as an SQL literal (standard quoting)."""
    return "'" + text.replace("'", "''") + "'"
