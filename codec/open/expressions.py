"""Source of the inline value expressions of the generated writers, and their namespace.

Each column's expression turns its feed value (read into ``v{i}``) into what orjson writes for
it. The common feed values take a short inline path (in-range integers, strings, canonical
base64, ENUM names, non-integral doubles); NULL is None; anything else calls the column's
converter ``c{i}``, which gives the exact value or raises the error ``render`` names.
"""

from __future__ import annotations

import binascii
import datetime
from collections.abc import Sequence
from typing import Any

from tisink.codec.debezium.jsonwriter import single
from tisink.codec.open.columns import ColumnSpec
from tisink.codec.open.values import BLOB_TYPES, TEXT_TYPES, Converter, go_quote
from tisink.codec.values import CANONICAL_PADDED_TAILS, timestamp_texts
from tisink.codec.values.checks import DECIMAL
from tisink.model.mysqltypes import INTEGER_RANGES, TypeFamily

_PLAIN_TEXT = (TypeFamily.DATE, TypeFamily.DATETIME, TypeFamily.TIME)


def expression(i: int, spec: ColumnSpec, utc: bool) -> str:
    """The value of column ``i`` from ``v{i}``; ``utc``: TIMESTAMP text passes as it is."""
    v, column = f"v{i}", spec.column
    slow = f"(None if {v} is None else c{i}({v}))"
    family, name = column.family, column.mysql_type
    if family in (TypeFamily.INT, TypeFamily.BIGINT, TypeFamily.YEAR, TypeFamily.BIT):
        if family is TypeFamily.YEAR:
            low, high = 0, 2155
        elif family is TypeFamily.BIT:
            low, high = 0, (1 << 64) - 1
        else:
            low, high, unsigned_max = INTEGER_RANGES[name]
            if column.unsigned:
                low, high = 0, unsigned_max
        return f"({v} if _type({v}) is int and {low} <= {v} <= {high} else {slow})"
    if (family is TypeFamily.STRING and name not in TEXT_TYPES) or family in _PLAIN_TEXT:
        return f"({v} if _type({v}) is str else {slow})"
    if family is TypeFamily.STRING:  # TEXT: the base64 of its UTF-8 bytes
        return f"(_b2a({v}.encode(), newline=False).decode() if _type({v}) is str else {slow})"
    if family is TypeFamily.BINARY and name in BLOB_TYPES:
        # a canonical base64 feed value is already TiCDC's text: strict decoding accepts it
        # (a bad one raises, and ``render`` names the column) and its padding bits are zero
        decodes = f"_a2b({v}, strict_mode=True) is not None"
        canonical = f"({v}[-1:] != '=' or {v}[-3:] in _padded)"
        return f"({v} if _type({v}) is str and {decodes} and {canonical} else {slow})"
    if family is TypeFamily.DECIMAL:
        return f"({v} if _type({v}) is str and _decimal({v}) else {slow})"
    if name == "varbinary":
        return f"(_quote(_a2b({v}, strict_mode=True)) if _type({v}) is str else {slow})"
    if name == "binary" and column.length:  # shorter values take the converter, which pads
        raw = f"r{i}"
        fits = f"_len({raw} := _a2b({v}, strict_mode=True)) == {column.length}"
        return f"(_quote({raw}) if _type({v}) is str and {fits} else {slow})"
    if family is TypeFamily.DOUBLE:
        # json-iterator and orjson agree on non-integral doubles in [1e-5, 1e16)
        fits = f"1e-5 <= _abs({v}) < 1e16 and not {v}.is_integer()"
        return f"({v} if _type({v}) is float and {fits} else {slow})"
    if family is TypeFamily.FLOAT:
        return f"(_single({v}) if _type({v}) is float else {slow})"
    if family is TypeFamily.ENUM:
        return f"(None if {v} is None else e{i}[{v}])"
    if family is TypeFamily.TIMESTAMP:
        text = v if utc else f"z{i}({v})"
        return f"({text} if _type({v}) is str else {slow})"
    return slow


def namespace(
    specs: Sequence[ColumnSpec], converters: Sequence[Converter], tz: datetime.tzinfo
) -> dict[str, Any]:
    """Default arguments of a generated writer: names, converters and helpers reach the code
    as fast locals, never through the source text."""
    names: dict[str, Any] = {
        "_type": type,
        "_abs": abs,
        "_single": single,
        "_a2b": binascii.a2b_base64,
        "_b2a": binascii.b2a_base64,
        "_padded": CANONICAL_PADDED_TAILS,
        "_decimal": DECIMAL.fullmatch,
        "_quote": go_quote,
        "_len": len,
    }
    for i, (spec, convert) in enumerate(zip(specs, converters, strict=True)):
        names[f"k{i}"], names[f"c{i}"] = spec.name, convert
        if spec.column.family is TypeFamily.ENUM:
            indexes = names[f"e{i}"] = {"": 0}
            for index, member in enumerate(spec.column.elements, 1):
                indexes.setdefault(member, index)  # the first of equal members, as enum_index
        if spec.column.family is TypeFamily.TIMESTAMP:
            names[f"z{i}"] = timestamp_texts(tz)
    return names
