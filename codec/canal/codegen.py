"""One generated function per table version (and column set) writing a whole canal-json row
message.

``encode(rows, mid, tail, append, table, commit_ts)`` appends the message of each row of
``rows`` in turn and returns at the first row of another table version or commitTs (or at the
end): the caller hands it a transaction's run of rows in one call, as a call with the per-table
names bound as defaults costs about as much as a small row. On an error the row that raised is
the first one without a message (the caller counts what was appended). ``mid`` is ``es`` to
``"sqlType":`` and ``tail`` what follows the last map (``_tidb`` or nothing), both made once per
commitTs; the parts fixed per table version are joined around them, never concatenated per
transaction. Each image is read column by column into locals, the common feed values are
converted inline (integers through ``str``, strings passed as they are, binary through base64
to ISO-8859-1 text, ENUM names through a dict; DECIMAL and DOUBLE as Simple JSON's,
``json_fast``; FLOAT and VECTOR elements with ``float32_text``'s first way inline) and
everything else goes through the column's converter, which gives the exact text or the error.
A string or binary text is tested for a backspace or form feed (a string's also for U+2028 and
U+2029) as it is read; an unsigned integer whose value widens the sqlType sets its bit in the
mask behind the same type test as its text. An UPDATE's after image takes the before image's
text of every value it shares with it. Each map costs one dict display and one
``orjson.dumps``; the rest of the message is bytes, joined. Names, converters and templates
reach the code as default arguments (fast locals), never through the source text.
"""

from __future__ import annotations

import binascii
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from orjson import Fragment

from tisink.codec.canal.jsontext import (
    CONTROLS,
    FIRST_MARKS,
    GO_ESCAPES,
    SEPARATOR_ESCAPES,
    SEPARATORS,
    fix,
    go_text,
    separated,
    separators,
    text_fragment,
)
from tisink.codec.canal.values import Converter
from tisink.codec.json_fast import HELPERS, number_text
from tisink.core.codegen import run_generated
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo

RowEncoder = Callable[[Iterable[Any], bytes, bytes, Callable[[bytes], None], Any, int], None]
"""``encode(rows, mid, tail, append, table, commit_ts)``: see the module's docstring."""

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
    if family is TypeFamily.FLOAT:
        return f"{_float32(v, f't{i}')} if _type({v}) is float else {slow}"
    if family is TypeFamily.VECTOR:  # vector_text with its elements' float32_text inline
        elements = f"[{_float32('x', f't{i}', typed=False)} for x in {v}]"
        return f"'[' + ','.join({elements}) + ']' if _type({v}) is list else {slow}"
    number = number_text(i, family, slow)
    if number is not None:
        return number
    if family is TypeFamily.BINARY:
        condition, text = _binary(i, column, f"t{i}")
        return f"{text} if {condition} else {slow}"
    if family is TypeFamily.ENUM:  # a name outside the members raises: the general path tells
        return f"None if {v} is None else e{i}[{v}]"
    return slow


def _float32(v: str, t: str, typed: bool = True) -> str:
    """Source of ``float32_text(v)``, its first way inline for a float (a short repr is the
    answer; ``t`` holds it): a call costs as much as the rest. ``typed``: ``v`` is known to be
    a float."""
    short = f"(_len({t} := _repr({v})) < 8 or _len({t}) == 8 and {t}[0] == '-')"
    test = f"{short} and '.' in {t} and 'e' not in {t}"
    if not typed:
        test = f"_type({v}) is float and {test}"
    return f"(({t}[:-2] if {t}[-2:] == '.0' else {t}) if {test} else _f32({v}))"


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
    escapes = _escapes(target)
    if column.family is TypeFamily.STRING:  # an ISO-8859-1 text holds no separator
        escapes = [*_separators(target), "        el" + escapes[0].lstrip(), *escapes[1:]]
    return [
        *lines,
        *escapes,
        "    else:",
        f"        {target} = None if v{i} is None else _go_text(c{i}(v{i}), _dumps)",
    ]


def _separators(t: str) -> list[str]:
    """Lines giving a string text ``t`` that holds U+2028 or U+2029 Go's escapes for them as a
    Fragment (``jsontext.separated``), before the tests for controls (an ``elif`` follows):
    a text holding only line separators is dumped and replaced right here. Two tests that cost
    nothing on a text of ISO-8859-1 characters (a wider character is needed to find one),
    where a map holding one costs a three-byte search and replace over the whole map."""
    line, paragraph = SEPARATORS
    others = " or ".join(f"{c!r} in {t}" for c in (paragraph, *CONTROLS))
    replace = f".replace({line.encode()!r}, {SEPARATOR_ESCAPES[0]!r})"
    return [
        f"        if {line!r} in {t}:",
        f"            if {others}:",
        f"                {t} = _separated({t}, _dumps)",
        "            else:",
        f"                {t} = _fragment(_dumps({t}){replace})",
        f"        elif {paragraph!r} in {t}:",
        f"            {t} = _separated({t}, _dumps)",
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
    (``_text``). ``keep`` also leaves the feed values in ``w{i}`` for the after image of an
    UPDATE, which reuses the texts ``{same}{i}`` of those it finds unchanged: an equal string
    or binary value, or the very object of any other column (most of an UPDATE's values are;
    equality would not do, ``1 == True``), whose text is then neither made nor escaped twice."""
    limits = {i: (bit, limit) for bit, (i, limit) in enumerate(promotions)}
    lines = ["    m = 0"] if promotions else []
    kept = "w{i} = " if keep else ""
    for i, expr in enumerate(exprs):
        lines.append(f"    v{i} = {kept.format(i=i)}{image}[k{i}]")
        if i in texts:
            lines += _text(i, texts[i], f"{prefix}{i}", same)
        elif i in limits:
            bit, limit = limits[i]
            lines += [
                f"    if _type(v{i}) is int:",
                f"        {prefix}{i} = _str(v{i})",
                f"        if v{i} > {limit}:",
                f"            m |= {1 << bit}",
                "    else:",
                f"        {prefix}{i} = None if v{i} is None else c{i}(v{i})",
            ]
        elif same:
            lines += [
                f"    if v{i} is w{i}:",
                f"        {prefix}{i} = {same}{i}",
                "    else:",
                f"        {prefix}{i} = {expr}",
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


_HTML_ESCAPES = ((b"<", b"\\u003c"), (b">", b"\\u003e"), (b"&", b"\\u0026"))
"""Go's HTML-safe escapes (``gojson.html_escape``); 226 (0xE2) leads U+2028 and U+2029."""


def _dump(target: str, display: str, odd_names: bool) -> list[str]:
    """Dump a map and give it Go's escapes: the texts' controls are done (``_controls``), so
    the HTML-safe ones and U+2028/U+2029 are left, unless a column name holds a control too.
    They are ``html_escape`` inline, each replace behind its own memchr: most maps holding a
    binary text hold one of ``<>&``, and a call that tests all four again costs more than the
    tests left to run here."""
    if odd_names:
        return [f"    {target} = _fix(_dumps({display}))"]
    lines = [f"    {target} = _dumps({display})"]
    for char, escape in _HTML_ESCAPES:
        lines += [
            f"    if {ord(char)} in {target}:",
            f"        {target} = {target}.replace({char!r}, {escape!r})",
        ]
    return [*lines, f"    if 226 in {target}:", f"        {target} = _separators({target})"]


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


def _appends(promoted: bool) -> tuple[str, str, str]:
    """The joins of an INSERT, an UPDATE and a DELETE; with promotions the ``sqlType`` and
    ``mysqlType`` part is looked up by mask, already joined to what follows it."""
    if not promoted:
        return (
            "_join((ti, mid, fno, data, tail))",
            "_join((tu, mid, fwo, old, sep, data, tail))",
            "_join((td, mid, fno, data, tail))",
        )
    return (
        "_join((ti, mid, sno[m], data, tail))",
        "_join((tu, mid, swo[m], old, sep, data, tail))",
        "_join((td, mid, sno[m], data, tail))",
    )


def compile_row_encoder(
    columns: list[tuple[ColumnInfo, Converter]],
    templates: Templates,
    *,
    utc: bool,
    zone_text: Callable[[str], str],
    only_updated: bool,
    dumps: Callable[[Any], bytes],
    newarch: bool = True,
) -> RowEncoder:
    """``encode(row, mid, tail)`` for rows of one table version over ``columns``. With
    ``only_updated``, ticdc (``newarch``) compares the rendered texts, tiflow the typed values
    (``IsColumnValueEqual``): they differ only for a FLOAT/DOUBLE going between 0 and -0,
    which tiflow finds unchanged."""
    promotions = templates.promotions
    namespace: dict[str, Any] = {
        "_type": type,
        "_str": str,  # behind ``type(v) is int``: str of an int is its repr
        "_repr": repr,
        "_len": len,
        "_dumps": dumps,
        "_frag": text_fragment,
        "_separated": separated,
        "_fragment": Fragment,
        "_go_text": go_text,
        "_separators": separators,
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
        sql_type, no_old, with_old = templates.sql_type, templates.no_old, templates.with_old
        namespace.update(
            sno=_ByMask(lambda mask: sql_type(mask) + no_old),
            swo=_ByMask(lambda mask: sql_type(mask) + with_old),
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
        shown = frozenset() if keep or same else inline  # an UPDATE keeps every text
        return _read(image, exprs, prefix, shown, chosen, fused, keep=keep, same=same)

    after = _controls("a", kinds) if only_updated else []
    after += _dump("data", _display(exprs, "a", inline, promoted), odd)
    if only_updated:
        zeros = (
            frozenset()
            if newarch
            else frozenset(
                i for i, c in enumerate(kinds) if c.family in (TypeFamily.FLOAT, TypeFamily.DOUBLE)
            )
        )
        old = ["    o = {}"]
        for i in range(len(exprs)):
            if i in zeros:  # tiflow: -0.0 == 0.0
                same_zero = f"before[k{i}] == 0 == after[k{i}]"
                old.append(f"    if b{i} != a{i} and not ({same_zero}): o[k{i}] = b{i}")
            else:
                old.append(f"    if b{i} != a{i}: o[k{i}] = b{i}")
        old += _controls("b", kinds, old=True) + _dump("old", "o", odd)
        update_path = [*read("before", "b", False), *read("after", "a"), *old, *after]
    else:
        everything: frozenset[int] = frozenset()
        old = _dump("old", _display(exprs, "b", everything), odd)
        data = _dump("data", _display(exprs, "a", everything), odd)
        read_before = read("before", "b", False, keep=True)
        update_path = [*read_before, *old, *read("after", "a", same="b"), *data]
    insert, update, delete = _appends(bool(promotions))
    body = [
        "    after = row.after",
        "    before = row.before",
        "    if before is None:",
        *_indent(read("after", "a") + after),
        f"        append({insert})",
        "        continue",
        "    if after is None:",
        *_indent(read("before", "a") + after),
        f"        append({delete})",
        "        continue",
        *update_path,
        f"    append({update})",
    ]
    defaults = ", ".join(f"{name}={name}" for name in namespace)
    source = "\n".join(
        [
            f"def generated(rows, mid, tail, append, table, commit_ts, {defaults}):",
            "    for row in rows:",
            "        if row.table is not table or row.commit_ts != commit_ts:",
            "            return",
            *_indent(body),
        ]
    )
    encoder: RowEncoder = run_generated(source, "canal-json row writer", namespace)["generated"]
    return encoder
