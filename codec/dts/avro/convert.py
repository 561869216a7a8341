"""Feed values -> the variable part of DTS value records: text, bytes, doubles.

The temporal types have their own module (``temporal``). Each converter raises TypeError,
ValueError or CodecError on a value that does not fit its column; the record writer names the
table and column.
"""

from __future__ import annotations

from collections.abc import Callable

from tisink.codec.dts.charsets import python_codec
from tisink.codec.values import enum_index, float32_text
from tisink.model.table import ColumnInfo


def integer_text(value: int) -> str:
    """Decimal text of an int (bool and float are rejected, not stringified)."""
    if type(value) is not int:
        raise TypeError(f"expected an integer, got {value!r}")
    return int.__repr__(value)


def text_value(value: str) -> str:
    """A DECIMAL's exact text, as the feed gives it."""
    if type(value) is not str:
        raise TypeError(f"expected a string, got {value!r}")
    return value


def charset_encoder(charset: str) -> Callable[[str], bytes]:
    """Text -> the column's bytes in its charset (UnicodeEncodeError when it has no such
    character)."""
    codec = python_codec(charset)
    if codec == "utf-8":
        return str.encode

    def encode(value: str) -> bytes:
        return value.encode(codec)

    return encode


def float32_value(value: float) -> float:
    """A FLOAT as MySQL shows it: the shortest text that reads back as the same float32."""
    return float(float32_text(value))


def enum_text(column: ColumnInfo) -> Callable[[str], str]:
    """The member name, checked against the column's members."""

    def convert(value: str) -> str:
        enum_index(column, value)  # a non-member is an error, not passed through
        return value

    return convert
