"""One generated function per table version (and column set) writing a whole canal-json row
message.

``encode(row, heads, tail) -> bytes``: ``heads`` are the INSERT, UPDATE and DELETE message
starts made once per commitTs (``Templates.heads``), ``tail`` what follows the last map
(``_tidb`` or nothing). Each image is read column by column into locals, the common feed values
are converted inline (integers through ``int.__repr__``, strings passed as they are, binary
through base64 and ISO-8859-1, ENUM names through a dict) and everything else goes through the
column's converter, which gives the exact text or the error. Each map costs one dict display and
one ``orjson.dumps``; the rest of the message is bytes, joined. Names, converters and templates
reach the code as default arguments (fast locals), never through the source text.
"""

from __future__ import annotations

import binascii
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tisink.codec.canal.jsontext import SPECIAL_CHARACTERS, fix, html_tags, text_fragment
from tisink.codec.canal.values import Converter
from tisink.codec.values import float32_text, float64_text
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo

RowEncoder = Callable[[Any, tuple[bytes, bytes, bytes], bytes], bytes]

_TEXT = (TypeFamily.STRING, TypeFamily.DATE, TypeFamily.DATETIME, TypeFamily.TIME)
_INTEGRAL = (TypeFamily.INT, TypeFamily.BIGINT, TypeFamily.YEAR, TypeFamily.BIT)


@dataclass(frozen=True)
class Templates:
    """The bytes of a row message fixed per table version and column set."""

    types: tuple[bytes, bytes, bytes]
    """Up to and including ``"type":"INSERT"`` / ``"UPDATE"`` / ``"DELETE"``."""
    sql_type: Callable[[int], bytes]
    """The ``sqlType`` object for a promotion mask (bit i: promotable column i promoted),
    cached: rows call it per message."""
    promotions: tuple[tuple[int, int], ...]
    """``(column index, limit)`` of the unsigned integer columns whose sqlType a value above
    ``limit`` widens."""
    no_old: bytes
    """``,"mysqlType":{...},"old":null,"data":[``"""
    with_old: bytes
    """``,"mysqlType":{...},"old":[``"""

    def heads(self, mid: bytes) -> tuple[bytes, bytes, bytes]:
        """The INSERT, UPDATE and DELETE starts for ``mid`` (``es`` to ``"sqlType":``): whole
        up to the first map when the sqlType is fixed, else up to the sqlType."""
        insert, update, delete = (start + mid for start in self.types)
        if self.promotions:
            return insert, update, delete
        fixed = self.sql_type(0)
        return (
            insert + fixed + self.no_old,
            update + fixed + self.with_old,
            delete + fixed + (self.no_old),
        )


def _expression(i: int, column: ColumnInfo, utc: bool) -> str:
    """Source of the text of column ``i`` (its feed value in ``v{i}``); None for NULL."""
    v, family = f"v{i}", column.family
    slow = f"(None if {v} is None else c{i}({v}))"
    if family in _INTEGRAL:
        return f"_str({v}) if _type({v}) is int else {slow}"
    if family in _TEXT or (family is TypeFamily.TIMESTAMP and utc):
        return f"{v} if _type({v}) is str else {slow}"
    if family is TypeFamily.TIMESTAMP:
        return f"z{i}({v}) if _type({v}) is str else {slow}"
    if family is TypeFamily.DECIMAL:
        s = f"s{i}"
        digits = f"({s} := {v}.strip('0123456789')) == '.' and {v}[0] != '.' and {v}[-1] != '.'"
        return f"{v} if _type({v}) is str and ({digits} or not {s} and {v}) else {slow}"
    if family is TypeFamily.DOUBLE:
        return f"_f64({v}) if _type({v}) is float else {slow}"
    if family is TypeFamily.FLOAT:
        return f"_f32({v}) if _type({v}) is float else {slow}"
    if family is TypeFamily.BINARY:
        latin = f"_latin(_a2b({v}, strict_mode=True), 'latin-1')"
        if column.mysql_type == "binary":  # binary(N): N bytes as given, else padded by c{i}
            t = f"t{i}"
            fits = f"_len({t} := {latin}) == {column.length}"
            return f"{t} if _type({v}) is str and {fits} else {slow}"
        return f"{latin} if _type({v}) is str else {slow}"
    if family is TypeFamily.ENUM:
        return f"None if {v} is None else (e{i}.get({v}) or c{i}({v}))"
    return slow


def _read(image: str, exprs: list[str], prefix: str) -> list[str]:
    lines = []
    for i, expr in enumerate(exprs):
        lines.append(f"    v{i} = {image}[k{i}]")
        lines.append(f"    {prefix}{i} = {expr}")
    return lines


def _dump(target: str, display: str, odd_names: bool) -> list[str]:
    """Dump a map and give it Go's escapes: the texts' own are done (``_special``), so
    ``<>&`` are left, unless a column name holds another special character."""
    if odd_names:
        return [f"    {target} = _fix(_dumps({display}))"]
    return [
        f"    {target} = _dumps({display})",
        f"    if 60 in {target} or 62 in {target} or 38 in {target}:",
        f"        {target} = _html({target})",
    ]


def _special(prefix: str, columns: list[ColumnInfo], old: bool = False) -> list[str]:
    """Lines turning a text ``{prefix}{i}`` that holds a character of ``SPECIAL_CHARACTERS``
    into a Fragment with Go's escapes (orjson writes ``\\b``/``\\f`` and U+2028/9 raw). Only
    string and binary columns can hold them (binary text is ISO-8859-1: no U+2028/9; TiDB's
    JSON text escapes all four). Testing the texts is far cheaper than searching the map for
    a multi-byte sequence. ``old``: also replace the text in the ``o`` map of
    only-output-updated-columns, built from the plain texts."""
    lines = []
    for i, column in enumerate(columns):
        if column.family not in (TypeFamily.STRING, TypeFamily.BINARY):
            continue
        v = f"{prefix}{i}"
        binary = column.family is TypeFamily.BINARY
        characters = SPECIAL_CHARACTERS[:2] if binary else SPECIAL_CHARACTERS
        tests = " or ".join(f"{c!r} in {v}" for c in characters)
        lines += [f"    if {v} is not None and ({tests}):", f"        {v} = _frag({v})"]
        if old:
            lines.append(f"        if k{i} in o: o[k{i}] = {v}")
    return lines


def _mask(promotions: tuple[tuple[int, int], ...]) -> list[str]:
    """``st``: the sqlType bytes for the values now in ``v{i}``."""
    terms = " | ".join(
        f"({1 << bit} if _type(v{i}) is int and v{i} > {limit} else 0)"
        for bit, (i, limit) in enumerate(promotions)
    )
    return [f"    st = stf({terms})"]


def _indent(lines: list[str]) -> list[str]:
    return ["    " + line for line in lines]


def _returns(promoted: bool) -> tuple[str, str, str]:
    """The joins of an INSERT, an UPDATE and a DELETE."""
    if not promoted:
        return (
            "_join((heads[0], data, tail))",
            "_join((heads[1], old, sep, data, tail))",
            "_join((heads[2], data, tail))",
        )
    return (
        "_join((heads[0], st, no_old, data, tail))",
        "_join((heads[1], st, with_old, old, sep, data, tail))",
        "_join((heads[2], st, no_old, data, tail))",
    )


def compile_row_encoder(
    columns: list[tuple[ColumnInfo, Converter]],
    templates: Templates,
    *,
    utc: bool,
    zone_text: Callable[[str], str],
    only_updated: bool,
    dumps: Callable[[Any], bytes],
) -> RowEncoder:
    """``encode(row, heads, tail)`` for rows of one table version over ``columns``."""
    namespace: dict[str, Any] = {
        "_type": type,
        "_str": int.__repr__,
        "_len": len,
        "_dumps": dumps,
        "_frag": lambda text: text_fragment(text, dumps),
        "_html": html_tags,
        "_fix": fix,
        "_join": b"".join,
        "_f32": float32_text,
        "_f64": float64_text,
        "_a2b": binascii.a2b_base64,
        "_latin": bytes.decode,
        "no_old": templates.no_old,
        "with_old": templates.with_old,
        "sep": b'],"data":[',
        "stf": templates.sql_type,
    }
    exprs = []
    for i, (column, convert) in enumerate(columns):
        namespace[f"k{i}"], namespace[f"c{i}"] = column.name, convert
        if column.family is TypeFamily.TIMESTAMP:
            namespace[f"z{i}"] = zone_text
        if column.family is TypeFamily.ENUM:
            namespace[f"e{i}"] = {name: convert(name) for name in ("", *column.elements)}
        exprs.append(_expression(i, column, utc))
    count = len(exprs)
    data = "{" + ", ".join(f"k{i}: a{i}" for i in range(count)) + "}"
    old_all = "{" + ", ".join(f"k{i}: b{i}" for i in range(count)) + "}"
    kinds = [column for column, _ in columns]
    odd = any(c in column.name for column in kinds for c in SPECIAL_CHARACTERS)
    after = _special("a", kinds) + _dump("data", data, odd)
    promoted = bool(templates.promotions)
    mask = _mask(templates.promotions) if promoted else []
    if only_updated:
        old = ["    o = {}", *(f"    if b{i} != a{i}: o[k{i}] = b{i}" for i in range(count))]
        old += _special("b", kinds, old=True) + _dump("old", "o", odd)
    else:
        old = _special("b", kinds) + _dump("old", old_all, odd)
    insert, update, delete = _returns(promoted)
    body = [
        "    after = row.after",
        "    before = row.before",
        "    if before is None:",
        *_indent(_read("after", exprs, "a") + mask + after),
        f"        return {insert}",
        "    if after is None:",
        *_indent(_read("before", exprs, "a") + mask + after),
        f"        return {delete}",
        *_read("before", exprs, "b"),
        *_read("after", exprs, "a"),
        *mask,
        *old,
        *after,
        f"    return {update}",
    ]
    defaults = ", ".join(f"{name}={name}" for name in namespace)
    source = "\n".join([f"def generated(row, heads, tail, {defaults}):", *body])
    exec(compile(source, "<canal-json-row-encoder>", "exec"), namespace)
    encoder: RowEncoder = namespace["generated"]
    return encoder
