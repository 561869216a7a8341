"""Feed values -> the variable part of DTS value records: text, bytes, doubles.

The temporal types have their own module (``temporal``). Each converter raises TypeError,
ValueError or CodecError on a value that does not fit its column; the record writer names the
table and column.
"""

from __future__ import annotations

from collections.abc import Callable

from tisink.codec.values import enum_index, float32_text, set_bitmask
from tisink.model.table import ColumnInfo

CHARSET_CODECS: dict[str, str] = {
    "utf8mb4": "utf-8",
    "utf8": "utf-8",
    "utf8mb3": "utf-8",
    "ascii": "ascii",
    "latin1": "cp1252",
    "gbk": "gbk",
    "gb18030": "gb18030",
}
"""MySQL charset -> Python codec for ``Character.value`` (MySQL's latin1 is cp1252); any other
charset is written as UTF-8, TiDB's own storage form."""


_SET_TEXTS_LIMIT = 1 << 12


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
    codec = CHARSET_CODECS.get(charset.lower(), "utf-8")
    if codec == "utf-8":
        return str.encode

    def encode(value: str) -> bytes:
        return value.encode(codec)

    return encode


def float32_value(value: float) -> float:
    """A FLOAT as MySQL shows it: the shortest text that reads back as the same float32."""
    return float(float32_text(value))


def set_text(column: ColumnInfo) -> Callable[[list[str] | str], str]:
    """Members in definition order, comma-joined, as MySQL prints a SET."""
    texts: dict[int, str] = {}

    def convert(value: list[str] | str) -> str:
        mask = set_bitmask(column, value)
        text = texts.get(mask)
        if text is None:
            text = ",".join(e for i, e in enumerate(column.elements) if mask >> i & 1)
            if len(texts) >= _SET_TEXTS_LIMIT:
                texts.clear()
            texts[mask] = text
        return text

    return convert


def enum_text(column: ColumnInfo) -> Callable[[str], str]:
    """The member name, checked against the column's members."""

    def convert(value: str) -> str:
        enum_index(column, value)  # a non-member is an error, not passed through
        return value

    return convert
