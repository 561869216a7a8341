"""One generated function per table version (and column set) writing a whole canal-json row
message.

``encode(row, mid, tail) -> bytes``: ``mid`` is ``es`` to ``"sqlType":`` and ``tail`` what
follows the last map (``_tidb`` or nothing), both made once per commitTs; the parts fixed per
table version are joined around them, never concatenated per transaction. Each image is read
column by column into locals, the common feed values are converted inline (integers through
``str``, strings passed as they are, binary through base64 to ISO-8859-1 text, ENUM names
through a dict; DECIMAL, DOUBLE and FLOAT as Simple JSON's, ``json_fast``) and everything else
goes through the column's converter, which gives the exact text or the error. A string or
binary text is tested for a backspace or form feed as it is read; an unsigned integer whose
value widens the sqlType sets its bit in the mask behind the same type test as its text.
Each map costs one dict display and one ``orjson.dumps``; the rest of the message is bytes,
joined. Names, converters and templates reach the code as default arguments (fast locals),
never through the source text.
"""

from __future__ import annotations

import binascii
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from orjson import Fragment

from tisink.codec.canal.jsontext import (
    CONTROLS,
    FIRST_MARKS,
    GO_ESCAPES,
    fix,
    go_text,
    text_fragment,
)
from tisink.codec.canal.values import Converter
from tisink.codec.gojson import html_escape
from tisink.codec.json_fast import HELPERS, number_text
from tisink.core.codegen import run_generated
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo

RowEncoder = Callable[[Any, bytes, bytes], bytes]

_TEXT = (TypeFamily.STRING, TypeFamily.DATE, TypeFamily.DATETIME, TypeFamily.TIME)
_INTEGRAL = (TypeFamily.INT, TypeFamily.BIGINT, TypeFamily.YEAR, TypeFamily.BIT)


@dataclass(frozen=True)
class Templates:
    """The bytes of a row message fixed per table version and column set."""

    types: tuple[bytes, bytes, bytes]
    """Up to and including ``"type":"INSERT"`` / ``"UPDATE"`` / ``"DELETE"``."""
    sql_type: Callable[[int], bytes]
    """The ``sqlType`` object for a promotion mask (bit i: promotable column i promoted)."""
    promotions: tuple[tuple[int, int], ...]
    """``(column index, limit)`` of the unsigned integer columns whose sqlType a value above
    ``limit`` widens."""
    no_old: bytes
    """``,"mysqlType":{...},"old":null,"data":[``"""
    with_old: bytes
    """``,"mysqlType":{...},"old":[``"""


class _ByMask(dict[int, bytes]):
    """The ``sqlType`` bytes by promotion mask, each made on first use: a subscript is cheaper
    per row than a call through a cache."""

    def __init__(self, make: Callable[[int], bytes]) -> None:
        super().__init__()
        self._make = make

    def __missing__(self, mask: int) -> bytes:
        self[mask] = text = self._make(mask)
        return text


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
    number = number_text(i, family, slow)
    if number is not None:
        return number
    if family is TypeFamily.BINARY:
        condition, text = _binary(i, column, f"t{i}")
        return f"{text} if {condition} else {slow}"
    if family is TypeFamily.ENUM:  # a name outside the members raises: the general path tells
        return f"None if {v} is None else e{i}[{v}]"
    return slow


def _binary(i: int, column: ColumnInfo, target: str) -> tuple[str, str]:
    """The test that a binary column's feed value takes the inline way, and its text then
    (``target`` is set by the test of a ``binary(N)``, which must hold N bytes as given; the
    converter pads a shorter one)."""
    latin = f"_latin(_a2b(v{i}, strict_mode=True), 'latin1')"
    if column.mysql_type == "binary":
        return f"_type(v{i}) is str and _len({target} := {latin}) == {column.length}", target
    return f"_type(v{i}) is str", latin


def _text(i: int, column: ColumnInfo, target: str, same: str = "") -> list[str]:
    """Lines setting ``target`` to a string or binary column's text, a Fragment with Go's
    escapes when it holds a backspace or form feed (``jsontext.CONTROLS``): the common case
    tests only the text, not its type or NULL again. With ``same`` (the prefix of the before
    image's texts, read into ``w{i}``), an UPDATE's unchanged value takes the before image's
    text as it is: an unchanged blob is neither decoded nor escaped twice."""
    if column.family is TypeFamily.STRING:
        condition, text = f"_type(v{i}) is str", f"v{i}"
    else:
        condition, text = _binary(i, column, target)
    lines = [f"    if v{i} == w{i}:", f"        {target} = {same}{i}"] if same else []
    lines.append(f"    {'el' if same else ''}if {condition}:")
    if text != target:
        lines.append(f"        {target} = {text}")
    return [
        *lines,
        *_escapes(target),
        "    else:",
        f"        {target} = None if v{i} is None else _go_text(c{i}(v{i}), _dumps)",
    ]


def _escapes(t: str) -> list[str]:
    """Lines giving the text ``t`` Go's escapes of the controls it holds, the same two tests as
    ``'\\x08' in t or '\\x0c' in t`` when it holds none. A text holding one of them and not
    that control's first mark (``jsontext.FIRST_MARKS``) is dumped with the control swapped for
    the mark right here, as ``text_fragment`` would; any other takes ``text_fragment``, which
    looks for an absent mark."""
    lines = []
    for n, (control, mark, escape) in enumerate(
        zip(CONTROLS, FIRST_MARKS, GO_ESCAPES, strict=True)
    ):
        alone = "".join(f" and {c!r} not in {t}" for c in CONTROLS[n + 1 :])
        swapped = (
            f"_dumps({t}.replace({control!r}, {mark!r})).replace({mark.encode()!r}, {escape!r})"
        )
        lines += [
            f"        {'el' if n else ''}if {control!r} in {t}:",
            f"            if {mark!r} not in {t}{alone}:",
            f"                {t} = _fragment({swapped})",
            "            else:",
            f"                {t} = _frag({t}, _dumps)",
        ]
    return lines


def _read(
    image: str,
    exprs: list[str],
    prefix: str,
    inline: frozenset[int],
    promotions: tuple[tuple[int, int], ...],
    texts: dict[int, ColumnInfo],
    *,
    keep: bool = False,
    same: str = "",
) -> list[str]:
    """Read ``image`` into ``v{i}``; the texts of columns not ``inline`` into ``{prefix}{i}``
    (those written straight into the map's display stay expressions of ``v{i}``). With
    ``promotions`` (this image decides the sqlType) their columns also set their bit in ``m``,
    behind the one type test their text takes; ``texts`` get their escapes as they are read
    (``_text``): ``keep`` also leaves their feed values in ``w{i}`` for the after image of an
    UPDATE, which reuses the texts ``{same}{i}`` of those it finds unchanged."""
    limits = {i: (bit, limit) for bit, (i, limit) in enumerate(promotions)}
    lines = ["    m = 0"] if promotions else []
    for i, expr in enumerate(exprs):
        if i in texts:
            kept = f"w{i} = " if keep else ""
            lines.append(f"    v{i} = {kept}{image}[k{i}]")
            lines += _text(i, texts[i], f"{prefix}{i}", same)
            continue
        lines.append(f"    v{i} = {image}[k{i}]")
        if i in limits:
            bit, limit = limits[i]
            lines += [
                f"    if _type(v{i}) is int:",
                f"        {prefix}{i} = _str(v{i})",
                f"        if v{i} > {limit}:",
                f"            m |= {1 << bit}",
                "    else:",
                f"        {prefix}{i} = None if v{i} is None else c{i}(v{i})",
            ]
        elif i not in inline:
            lines.append(f"    {prefix}{i} = {expr}")
    return lines


def _display(
    exprs: list[str], prefix: str, inline: frozenset[int], read: frozenset[int] = frozenset()
) -> str:
    """The map of an image: inline expressions, or the texts kept in ``{prefix}{i}`` (those of
    ``read`` too)."""
    values = (
        expr if i in inline and i not in read else f"{prefix}{i}" for i, expr in enumerate(exprs)
    )
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
    with Go's escapes (``jsontext.CONTROLS``), for only-output-updated-columns, which compares
    the plain texts first. Only string and binary columns can hold them (TiDB's JSON text
    escapes them). ``old``: also replace the text in the ``o`` map built from the plain texts."""
    lines = []
    for i, column in enumerate(columns):
        if column.family not in (TypeFamily.STRING, TypeFamily.BINARY):
            continue
        v = f"{prefix}{i}"
        tests = " or ".join(f"{c!r} in {v}" for c in CONTROLS)
        lines += [f"    if {v} is not None and ({tests}):", f"        {v} = _frag({v}, _dumps)"]
        if old:
            lines.append(f"        if k{i} in o: o[k{i}] = {v}")
    return lines


def _indent(lines: list[str]) -> list[str]:
    return ["    " + line for line in lines]


def _returns(promoted: bool) -> tuple[str, str, str]:
    """The joins of an INSERT, an UPDATE and a DELETE."""
    if not promoted:
        return (
            "_join((ti, mid, fno, data, tail))",
            "_join((tu, mid, fwo, old, sep, data, tail))",
            "_join((td, mid, fno, data, tail))",
        )
    return (
        "_join((ti, mid, sts[m], no_old, data, tail))",
        "_join((tu, mid, sts[m], with_old, old, sep, data, tail))",
        "_join((td, mid, sts[m], no_old, data, tail))",
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
    """``encode(row, mid, tail)`` for rows of one table version over ``columns``."""
    promotions = templates.promotions
    namespace: dict[str, Any] = {
        "_type": type,
        "_str": str,  # behind ``type(v) is int``: str of an int is its repr
        "_len": len,
        "_dumps": dumps,
        "_frag": text_fragment,
        "_fragment": Fragment,
        "_go_text": go_text,
        "_html": html_escape,
        "_fix": fix,
        "_join": b"".join,
        **HELPERS,
        "_a2b": binascii.a2b_base64,
        "_latin": bytes.decode,
        "ti": templates.types[0],
        "tu": templates.types[1],
        "td": templates.types[2],
        "sep": b'],"data":[',
    }
    if promotions:
        namespace.update(
            no_old=templates.no_old, with_old=templates.with_old, sts=_ByMask(templates.sql_type)
        )
    else:  # the sqlType is fixed: one part from it to the first map
        fixed = templates.sql_type(0)
        namespace.update(fno=fixed + templates.no_old, fwo=fixed + templates.with_old)
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
    promoted = frozenset(i for i, _ in promotions)
    odd = any(c in column.name for column in kinds for c in CONTROLS)
    # only-output-updated-columns compares the plain texts, so their escapes come after
    fused = {} if only_updated else {i: kinds[i] for i in texts}

    def read(
        image: str, prefix: str, decides: bool = True, *, keep: bool = False, same: str = ""
    ) -> list[str]:
        chosen = promotions if decides else ()
        return _read(image, exprs, prefix, inline, chosen, fused, keep=keep, same=same)

    after = _controls("a", kinds) if only_updated else []
    after += _dump("data", _display(exprs, "a", inline, promoted), odd)
    if only_updated:
        old = ["    o = {}", *(f"    if b{i} != a{i}: o[k{i}] = b{i}" for i in range(len(exprs)))]
        old += _controls("b", kinds, old=True) + _dump("old", "o", odd)
        update_path = [*read("before", "b", False), *read("after", "a"), *old, *after]
    else:
        old = _dump("old", _display(exprs, "b", inline), odd)
        read_before = read("before", "b", False, keep=True)
        update_path = [*read_before, *old, *read("after", "a", same="b"), *after]
    insert, update, delete = _returns(bool(promotions))
    body = [
        "    after = row.after",
        "    before = row.before",
        "    if before is None:",
        *_indent(read("after", "a") + after),
        f"        return {insert}",
        "    if after is None:",
        *_indent(read("before", "a") + after),
        f"        return {delete}",
        *update_path,
        f"    return {update}",
    ]
    defaults = ", ".join(f"{name}={name}" for name in namespace)
    source = "\n".join([f"def generated(row, mid, tail, {defaults}):", *body])
    encoder: RowEncoder = run_generated(source, "canal-json row writer", namespace)["generated"]
    return encoder
