"""ENUM, SET, BINARY and BIT values: from the feed's form to the numbers and bytes TiDB keeps."""

from __future__ import annotations

import binascii
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from tisink.codec.errors import CodecError
from tisink.model.table import ColumnInfo

# --- enum, set, binary ----------------------------------------------------------------------------


@lru_cache(maxsize=1024)
def _member_positions(elements: tuple[str, ...]) -> dict[str, int]:
    positions: dict[str, int] = {}
    for position, name in enumerate(elements):
        positions.setdefault(name, position)
    return positions


def enum_index(column: ColumnInfo, value: str) -> int:
    """The 1-based member index TiCDC writes for an enum; "" is MySQL's error member, index 0."""
    position = _member_positions(column.elements).get(value)
    if position is not None:
        return position + 1
    if value == "":
        return 0
    raise CodecError(
        f"column {column.name!r}: {value!r} is not a member of enum{list(column.elements)}"
    )


def set_bitmask(column: ColumnInfo, value: list[str] | str) -> int:
    """The bitmask of a set value: bit i is the i-th member; a comma-joined string is accepted."""
    names = (value.split(",") if value else []) if isinstance(value, str) else value
    positions = _member_positions(column.elements)
    mask = 0
    for name in names:
        position = positions.get(name)
        if position is None:
            raise CodecError(
                f"column {column.name!r}: {name!r} is not a member of set{list(column.elements)}"
            )
        mask |= 1 << position
    return mask


def enum_indexes(column: ColumnInfo) -> dict[str, int]:
    """Every member's ``enum_index`` (and "" -> 0), for converters that look a name up once."""
    return {"": 0} | {
        name: position + 1 for name, position in _member_positions(column.elements).items()
    }


def set_mask(column: ColumnInfo) -> Callable[[Any], int]:
    """``set_bitmask`` of a column's values with the member bits looked up once (the first of
    equal members wins, as TiDB's ``ParseSetValue``); a comma-joined string and a stranger (the
    error names it) take ``set_bitmask`` itself."""
    bits = {name: 1 << position for name, position in _member_positions(column.elements).items()}

    def mask(v: Any) -> int:
        if type(v) is list:
            found = 0
            try:
                for name in v:
                    found |= bits[name]
                return found
            except (KeyError, TypeError):
                pass
        elif type(v) is not str:
            raise TypeError(f"want a list of members, got {type(v).__name__}")
        return set_bitmask(column, v)

    return mask


_SET_TEXTS_LIMIT = 1 << 12
"""Names texts kept per SET column; the cache starts again beyond this."""


def set_names(column: ColumnInfo) -> Callable[[Any], str]:
    """A SET value as MySQL prints it (TiDB's ``ParseSetValue(elems, bitmask).Name``): its
    members in the column's order, joined by ","; each bitmask's text is made once."""
    mask = set_mask(column)
    members = tuple(enumerate(column.elements))
    texts: dict[int, str] = {}

    def names(v: Any) -> str:
        bitmask = mask(v)
        text = texts.get(bitmask)
        if text is None:
            text = ",".join(name for position, name in members if bitmask >> position & 1)
            if len(texts) >= _SET_TEXTS_LIMIT:
                texts.clear()
            texts[bitmask] = text
        return text

    return names


def binary_bytes(column: ColumnInfo, value: str) -> bytes:
    """The bytes of a base64 feed value; ``binary(N)`` is zero-padded to N bytes, as TiDB does."""
    try:
        raw = binascii.a2b_base64(value, strict_mode=True)
    except (binascii.Error, TypeError, ValueError) as err:
        raise CodecError(f"column {column.name!r}: value is not standard base64: {err}") from err
    if column.mysql_type == "binary" and column.length:
        if len(raw) > column.length:
            raise CodecError(
                f"column {column.name!r}: {len(raw)} bytes do not fit binary({column.length})"
            )
        if len(raw) < column.length:
            raw += bytes(column.length - len(raw))
    return raw


_BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
CANONICAL_PADDED_TAILS = frozenset(
    [c + "==" for c in _BASE64[::16]] + [a + c + "=" for a in _BASE64 for c in _BASE64[::4]]
)
"""The last three characters of every padded base64 text that is canonical (the bits the
padding leaves over are zero), so that encoding its decoded bytes gives it back; unpadded
text always is. A value strict decoding accepts is canonical iff it does not end in "=" or
its tail is one of these."""


# --- BIT defaults ---------------------------------------------------------------------------------


def bit_default_number(default: Any) -> int | None:
    """A BIT column's default as the JSON ``tableSchema`` number (TiDB MustBinaryLiteralToInt).

    Accepted feed forms: an int (already the number); ``"b'1010'"`` or ``"0b1010"`` bit
    literals; ``"0x2aa"`` hex literals; any other string is TiDB's raw stored default, one byte
    per character, read big-endian.
    """
    if default is None:
        return None
    if isinstance(default, bool) or not isinstance(default, int | str):
        raise CodecError(f"bad BIT default {default!r}")
    if isinstance(default, int):
        return default
    text = default
    try:
        if text[:2] in ("b'", "B'") and text.endswith("'"):
            return int(text[2:-1] or "0", 2)
        if text[:2] in ("0b", "0B"):
            return int(text[2:], 2)
        if text[:2] in ("0x", "0X"):
            return int(text[2:], 16)
        return int.from_bytes(text.encode("latin-1"), "big")
    except (ValueError, UnicodeEncodeError) as err:
        raise CodecError(f"bad BIT default {default!r}: {err}") from err
