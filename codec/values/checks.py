"""The feed-value shape checks every protocol's converters start from (spec/feed-format.md
"Values"): a number, a string, a decimal text. They raise TypeError/ValueError with a short
reason; the renderer names the table and column."""

from __future__ import annotations

import re
import struct
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from tisink.codec.errors import CodecError
from tisink.codec.values.floats import vector_text
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo

VALUE_ERRORS = (
    KeyError,
    TypeError,
    ValueError,
    OverflowError,
    AttributeError,
    struct.error,
    CodecError,
)
"""What a bad row image raises inside a converter or a generated writer; the row renderer then
names the table and column."""

TEXT_FAMILIES = (TypeFamily.STRING, TypeFamily.DATE, TypeFamily.DATETIME, TypeFamily.TIME)
"""The families whose feed value is their text as TiDB prints it."""

DECIMAL = re.compile(r"-?[0-9]+(\.[0-9]+)?")
"""A feed DECIMAL: digits with an optional sign and fraction, as TiDB prints it."""


def as_number(v: Any) -> float:
    """A FLOAT/DOUBLE feed value (an int is accepted) as a Python float."""
    if type(v) is float:
        return v
    if type(v) is int:
        return float(v)
    raise TypeError(f"want a number, got {type(v).__name__}")


def as_text(v: Any) -> str:
    """A string feed value."""
    if type(v) is not str:
        raise TypeError(f"want a string, got {type(v).__name__}")
    return v


def decimal_text(v: Any) -> str:
    """A DECIMAL feed value, its text unchanged."""
    if type(v) is str and DECIMAL.fullmatch(v):
        return v
    raise ValueError(f"want a decimal string like '-12.50', got {v!r}")


def integer_text(v: Any) -> str:
    """Decimal text of an integer (INT, BIGINT, YEAR); the range is the feed validator's
    business (TiDB never holds more)."""
    if type(v) is not int:
        raise TypeError(f"want an integer, got {type(v).__name__}")
    return int.__repr__(v)


def bit_text(v: Any) -> str:
    """Decimal text of a BIT value, the unsigned 64-bit number."""
    if type(v) is not int or not 0 <= v < 1 << 64:
        raise ValueError(f"want an unsigned 64-bit integer, got {v!r}")
    return int.__repr__(v)


def vector_list_text(v: Any) -> str:
    """``[a,b,...]`` of a VECTOR's list (``vector_text`` raises on an element that is no
    number)."""
    if type(v) is not list:
        raise TypeError(f"want a list of numbers, got {type(v).__name__}")
    return vector_text(v)


def failing_column(
    where: str,
    images: Iterable[Mapping[str, Any] | None],
    columns: Sequence[tuple[ColumnInfo, Callable[[Any], object]]],
    errors: tuple[type[Exception], ...] = VALUE_ERRORS,
) -> CodecError | None:
    """The first column of ``images`` that fails on its own, as an error naming it; None when
    every value converts. A row renderer calls it when the whole row failed, which names no
    column by itself."""
    for image in images:
        if image is None:
            continue
        for column, convert in columns:
            if column.name not in image:
                return CodecError(f"{where}: column {column.name!r}: missing from the row image")
            value = image[column.name]
            try:
                if value is not None:
                    convert(value)
            except errors as err:
                return CodecError(
                    f"{where}: column {column.name!r}: cannot render {column.mysql_type} "
                    f"value {value!r}: {err}"
                )
    return None
