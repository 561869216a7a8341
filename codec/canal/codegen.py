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

from tisink.codec.canal.jsontext import CONTROLS, fix, text_fragment
from tisink.codec.canal.values import Converter
from tisink.codec.gojson import html_escape
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
        # float64_text inline: orjson writes the shortest digits as repr does, already in Go's
        # 'f' form but for a trailing ".0", unless it needs an exponent (101 is "e") or the
        # value is not finite ("null", 110 is "n"): those take float64_text.
        t = f"t{i}"
        special = f"_f64({v}) if 101 in ({t} := _dumps({v})) or 110 in {t}"
        return (
            f"({special} else {t}.decode().removesuffix('.0')) if _type({v}) is float else {slow}"
        )
    if family is TypeFamily.FLOAT:
        return f"_f32({v}) if _type({v}) is float else {slow}"
    if family is TypeFamily.BINARY:
        latin = f"_latin(_a2b({v}, strict_mode=True), 'latin-1')"
        if column.mysql_type == "binary":  # binary(N): N bytes as given, else padded by c{i}
            t = f"t{i}"
            fits = f"_len({t} := {latin}) == {column.length}"
            return f"{t} if _type({v}) is str and {fits} else {slow}"
        return f"{latin} if _type({v}) is str else {slow}"
    if family is TypeFamily.ENUM:  # a name outside the members raises: the general path tells
        return f"None if {v} is None else e{i}[{v}]"
    return slow


def _read(image: str, exprs: list[str], prefix: str, inline: frozenset[int]) -> list[str]:
    """Read ``image`` into ``v{i}``; the texts of columns not ``inline`` into ``{prefix}{i}``
    (those written straight into the map's display stay expressions of ``v{i}``)."""
    lines = []
    for i, expr in enumerate(exprs):
        lines.append(f"    v{i} = {image}[k{i}]")
        if i not in inline:
            lines.append(f"    {prefix}{i} = {expr}")
    return lines


def _display(exprs: list[str], prefix: str, inline: frozenset[int]) -> str:
    """The map of an image: inline expressions, or the texts kept in ``{prefix}{i}``."""
    values = (expr if i in inline else f"{prefix}{i}" for i, expr in enumerate(exprs))
    return "{" + ", ".join(f"k{i}: {value}" for i, value in enumerate(values)) + "}"


def _dump(target: str, display: str, odd_names: bool) -> list[str]:
    """Dump a map and give it Go's escapes: the texts' controls are done (``_controls``), so
    the HTML-safe ones and U+2028/U+2029 are left (``html_escape``), unless a column name holds
    a control too."""
    if odd_names:
        return [f"    {target} = _fix(_dumps({display}))"]
    return [
        f"    {target} = _dumps({display})",
        f"    if 60 in {target} or 62 in {target} or 38 in {target} or 226 in {target}:",
        f"        {target} = _html({target})",
    ]


def _controls(prefix: str, columns: list[ColumnInfo], old: bool = False) -> list[str]:
    """Lines turning a text ``{prefix}{i}`` that holds a backspace or form feed into a Fragment
    with Go's escapes (``jsontext.CONTROLS``). Only string and binary columns can hold them
    (TiDB's JSON text escapes them). ``old``: also replace the text in the ``o`` map of
    only-output-updated-columns, built from the plain texts."""
    lines = []
    for i, column in enumerate(columns):
        if column.family not in (TypeFamily.STRING, TypeFamily.BINARY):
            continue
        v = f"{prefix}{i}"
        tests = " or ".join(f"{c!r} in {v}" for c in CONTROLS)
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
        "_str": str,  # behind ``type(v) is int``: str of an int is its repr
        "_len": len,
        "_dumps": dumps,
        "_frag": lambda text: text_fragment(text, dumps),
        "_html": html_escape,
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
    kinds = [column for column, _ in columns]
    texts = frozenset(
        i for i, c in enumerate(kinds) if c.family in (TypeFamily.STRING, TypeFamily.BINARY)
    )
    # Texts are tested for special characters, and only-output-updated-columns compares every
    # column: those stay in locals; the rest go straight into the display, as Simple's do.
    inline = frozenset() if only_updated else frozenset(range(len(exprs))) - texts
    odd = any(c in column.name for column in kinds for c in CONTROLS)
    after = _controls("a", kinds) + _dump("data", _display(exprs, "a", inline), odd)
    promoted = bool(templates.promotions)
    mask = _mask(templates.promotions) if promoted else []
    if only_updated:
        old = ["    o = {}", *(f"    if b{i} != a{i}: o[k{i}] = b{i}" for i in range(len(exprs)))]
        old += _controls("b", kinds, old=True) + _dump("old", "o", odd)
        update_path = [*_read("before", exprs, "b", inline), *_read("after", exprs, "a", inline)]
        update_path += [*mask, *old, *after]
    else:
        old = _controls("b", kinds) + _dump("old", _display(exprs, "b", inline), odd)
        update_path = [*_read("before", exprs, "b", inline), *old]
        update_path += [*_read("after", exprs, "a", inline), *mask, *after]
    insert, update, delete = _returns(promoted)
    body = [
        "    after = row.after",
        "    before = row.before",
        "    if before is None:",
        *_indent(_read("after", exprs, "a", inline) + mask + after),
        f"        return {insert}",
        "    if after is None:",
        *_indent(_read("before", exprs, "a", inline) + mask + after),
        f"        return {delete}",
        *update_path,
        f"    return {update}",
    ]
    defaults = ", ".join(f"{name}={name}" for name in namespace)
    source = "\n".join([f"def generated(row, heads, tail, {defaults}):", *body])
    exec(compile(source, "<canal-json-row-encoder>", "exec"), namespace)
    encoder: RowEncoder = namespace["generated"]
    return encoder
