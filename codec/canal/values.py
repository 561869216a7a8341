"""Column values as canal-json text (ticdc ``formatColumnValue`` in ``canal/helper.go``).

Every value is a JSON string: integers, YEAR and BIT (as the unsigned number) in decimal; FLOAT
in float32's shortest digits, DOUBLE in float64's; DECIMAL, dates and times as TiDB prints
them; TIMESTAMP in the changefeed's zone; ENUM as its 1-based index and SET as its bitmask, both
in decimal; JSON as TiDB's ``BinaryJSON.String()`` (``json_document_text``); VECTOR as
``[a,b,...]``. Binary columns (BINARY/VARBINARY/BLOB) are their bytes read as ISO-8859-1, one
character per byte, as Canal does. ``converter_for`` gives the checking form of each rule; the
generated renderers inline the common cases and call these for the rest.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterable
from typing import Any

import orjson

from tisink.codec.canal.jsontext import separators
from tisink.codec.errors import CodecError
from tisink.codec.values import (
    binary_bytes,
    enum_index,
    enum_indexes,
    float32_text,
    float64_text,
    set_mask,
)
from tisink.codec.values.checks import (
    as_number,
    as_text,
)
from tisink.codec.values.json_text import json_text
from tisink.codec.values.texts import tidb_text
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo

Converter = Callable[[Any], str]


def _binary(column: ColumnInfo) -> Converter:
    def convert(v: Any) -> str:
        return binary_bytes(column, as_text(v)).decode("latin-1")

    return convert


def _enum(column: ColumnInfo) -> Converter:
    texts = {name: str(index) for name, index in enum_indexes(column).items()}

    def convert(v: Any) -> str:
        text = texts.get(v) if type(v) is str else None
        return text if text is not None else str(enum_index(column, as_text(v)))

    return convert


def _set(column: ColumnInfo) -> Converter:
    mask = set_mask(column)
    return lambda v: str(mask(v))


def _plain_items(items: Iterable[Any]) -> bool:
    """``_plain`` for the members of a list or the values of a dict."""
    for x in items:
        kind = type(x)
        if kind is str:
            if "," in x or ":" in x:
                return False
        elif kind is dict:
            if not _plain(x):
                return False
        elif kind is list:
            if not _plain_items(x):
                return False
        elif kind is not int and kind is not bool and x is not None:
            return False
    return True


def _plain(document: dict[Any, Any]) -> bool:
    """Whether ``document`` holds only str keys, dicts, lists, str, int, bool and None, and no
    key or str holding a comma or a colon: then orjson writes ``json_text`` but for the
    separators' spaces (every comma and colon it writes is one) and U+2028/U+2029."""
    for key in document:
        if type(key) is not str or "," in key or ":" in key:
            return False
    return _plain_items(document.values())


def json_document_text(v: Any) -> str:
    """``json_text`` (TiDB's ``BinaryJSON.String()``), through orjson for a plain document
    (``_plain``): sorted keys, then ", " and ": " for its separators and Go's escapes of
    U+2028/U+2029 (orjson's string escapes are TiDB's otherwise). An int beyond 64 bits, a
    lone surrogate, a float (TiDB's own format), any other value takes ``json_text`` itself:
    a document walked in Python costs three times this."""
    kind = type(v)
    if _plain(v) if kind is dict else kind is list and _plain_items(v):
        try:
            out = orjson.dumps(v, option=orjson.OPT_SORT_KEYS)
        except orjson.JSONEncodeError:
            return json_text(v)
        out = out.replace(b",", b", ").replace(b":", b": ")
        if 226 in out:  # the lead byte of U+2028 and U+2029
            out = separators(out)
        return out.decode()
    return json_text(v)


def converter_for(column: ColumnInfo, tz: datetime.tzinfo) -> Converter:
    """The function from a non-NULL feed value of ``column`` to its canal-json text."""
    family = column.family
    if family is TypeFamily.FLOAT:
        return lambda v: float32_text(as_number(v))
    if family is TypeFamily.DOUBLE:
        return lambda v: float64_text(as_number(v))
    if family is TypeFamily.BINARY:
        return _binary(column)
    if family is TypeFamily.ENUM:
        return _enum(column)
    if family is TypeFamily.SET:
        return _set(column)
    if family is TypeFamily.JSON:
        return json_document_text
    text = tidb_text(column, tz)
    if text is None:
        raise CodecError(f"column {column.name!r}: no canal-json rendering for {column.mysql_type}")
    return text
