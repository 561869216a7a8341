"""One generated function per table version and column choice writing a row's value JSON.

The value is ``{"u":{...}}`` (INSERT), ``{"d":{...}}`` (DELETE) or ``{"u":{...},"p":{...}}``
(UPDATE; ``p`` with ``output-old-value``), each map holding ``"name":{"t":..,"h":true,"f":..,
"v":..}`` per column in table order (ticdc writes them with ``JSONWriter`` in that order).

Everything but the values is fixed per table version, so the plain writer dumps only the values:
one ``orjson.dumps`` of the list ``[v0, M, v1, M, ...]``, where the marker ``M`` is an orjson
Fragment of one raw NUL byte, which orjson never writes otherwise (it escapes control characters
in strings). Splitting on ``,NUL,`` gives each value's JSON, and one ``%`` format puts them into
the message template. ``only-output-updated-columns`` (whose ``p`` varies per row) and the
repairing writer (lone surrogates) build the maps as dicts instead.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from tisink.codec.debezium.jsonwriter import dumps as repairing_dumps
from tisink.codec.debezium.jsonwriter import quote
from tisink.codec.open.columns import ColumnSpec
from tisink.codec.open.escapes import long_escapes
from tisink.codec.open.expressions import expression, namespace
from tisink.codec.open.values import TEXT_TYPES, Converter
from tisink.core.codegen import run_generated
from tisink.model.mysqltypes import TypeFamily

ValueWriter = Callable[[Any], bytes]

MARKER = orjson.Fragment(b"\x00")
SEPARATOR = b",\x00,"


@dataclass(frozen=True)
class Shape:
    """Which columns each map holds: ``main`` indexes the columns of ``u`` and ``p``,
    ``deleted`` those of ``d``; ``old_value`` writes ``p``; ``only_updated`` keeps in ``p``
    the columns whose value changed."""

    main: tuple[int, ...]
    deleted: tuple[int, ...]
    old_value: bool
    only_updated: bool


def _head(spec: ColumnSpec) -> bytes:
    handle = b'"h":true,' if spec.handle else b""
    return b'%b:{"t":%d,%b"f":%d,"v":' % (quote(spec.name), spec.type_code, handle, spec.flag)


def _template(specs: Sequence[ColumnSpec], maps: Sequence[tuple[bytes, tuple[int, ...]]]) -> bytes:
    """The message with a ``%b`` per value: ``{"u":{...}}``, ``{"u":{...},"p":{...}}``..."""
    parts = []
    for field, positions in maps:
        columns = b",".join(_head(specs[i]).replace(b"%", b"%%") + b"%b}" for i in positions)
        parts.append(b'"%b":{%b}' % (field, columns))
    return b"{" + b",".join(parts) + b"}"


def _read(image: str, positions: tuple[int, ...]) -> list[str]:
    return [f"v{i} = {image}[k{i}]" for i in positions]


def _values(specs: Sequence[ColumnSpec], positions: tuple[int, ...], utc: bool) -> str:
    return ", _M, ".join(expression(i, specs[i], utc) for i in positions)


def _controls(specs: Sequence[ColumnSpec], positions: tuple[int, ...]) -> list[str]:
    """A line setting ``ctl`` when a CHAR/VARCHAR value just read holds a backspace or a form
    feed, the only characters orjson escapes short (as ``\\b`` / ``\\f``)."""
    tests = [
        f"(v{i} is not None and ('\\x08' in v{i} or '\\x0c' in v{i}))"
        for i in positions
        if _free_text(specs[i])
    ]
    return [f"ctl = ctl or {' or '.join(tests)}"] if tests else []


def _plain_body(specs: Sequence[ColumnSpec], shape: Shape, utc: bool) -> list[str]:
    """Template mode: the values alone are dumped; the long-escape scan runs only for a row
    whose CHAR/VARCHAR values hold a backspace or form feed."""
    main, deleted = shape.main, shape.deleted
    update = [*_read("after", main), f"a = [{_values(specs, main, utc)}]", *_controls(specs, main)]
    if shape.old_value:
        update += [*_read("before", main), f"a += [_M, {_values(specs, main, utc)}]"]
        update += _controls(specs, main)
    return [
        "ctl = False",
        "if before is None:",
        *("    " + line for line in _read("after", main)),
        f"    out = _dumps([{_values(specs, main, utc)}])",
        *("    " + line for line in _controls(specs, main)),
        "    out = insert % _tuple(out[1:-1].split(_sep))",
        "elif after is None:",
        *("    " + line for line in _read("before", deleted)),
        f"    out = _dumps([{_values(specs, deleted, utc)}])",
        *("    " + line for line in _controls(specs, deleted)),
        "    out = delete % _tuple(out[1:-1].split(_sep))",
        "else:",
        *("    " + line for line in update),
        "    out = _dumps(a)",
        "    out = update % _tuple(out[1:-1].split(_sep))",
        "if ctl:",
        "    out = _fix(out)",
    ]


def _dict(specs: Sequence[ColumnSpec], positions: tuple[int, ...], slow: bool) -> str:
    entries = []
    for i in positions:
        spec = specs[i]
        value = f"(None if v{i} is None else c{i}(v{i}))" if slow else expression(i, spec, False)
        handle = "'h': True, " if spec.handle else ""
        entries.append(f"k{i}: {{'t': {spec.type_code}, {handle}'f': {spec.flag}, 'v': {value}}}")
    return "{" + ", ".join(entries) + "}"


def _dict_body(specs: Sequence[ColumnSpec], shape: Shape, slow: bool) -> list[str]:
    """Dict mode: the maps are built and dumped whole."""
    main, deleted = shape.main, shape.deleted
    update = [*_read("after", main), f"u = {_dict(specs, main, slow)}"]
    if shape.old_value:
        update += [*_read("before", main), f"p = {_dict(specs, main, slow)}"]
        if shape.only_updated:
            update.append("p = {k: c for k, c in p.items() if before[k] != after[k]}")
        update.append("out = _dumps({'u': u, 'p': p})")
    else:
        update.append("out = _dumps({'u': u})")
    return [
        "if before is None:",
        *("    " + line for line in _read("after", main)),
        f"    out = _dumps({{'u': {_dict(specs, main, slow)}}})",
        "elif after is None:",
        *("    " + line for line in _read("before", deleted)),
        f"    out = _dumps({{'d': {_dict(specs, deleted, slow)}}})",
        "else:",
        *("    " + line for line in update),
    ]


def _free_text(spec: ColumnSpec) -> bool:
    """Whether the column's text reaches orjson as the feed gave it: CHAR and VARCHAR. Only
    such a value can hold the backspace or form feed that orjson escapes short (temporal text
    is checked by the feed reader; Go-quoted, base64 and JSON text hold no control
    character)."""
    return spec.column.family is TypeFamily.STRING and spec.column.mysql_type not in TEXT_TYPES


def compile_value_writer(
    specs: Sequence[ColumnSpec],
    converters: Sequence[Converter],
    shape: Shape,
    tz: datetime.tzinfo,
    repairing: bool = False,
) -> ValueWriter:
    """``write(row) -> bytes``; ``repairing`` dumps through the writer that turns lone
    surrogates into U+FFFD and converts every value with its converter (slower; used once
    orjson refused a row)."""
    names = namespace(specs, converters, tz)
    names.update(_dumps=repairing_dumps if repairing else orjson.dumps, _fix=long_escapes)
    if repairing or shape.only_updated:
        body = _dict_body(specs, shape, slow=repairing)
    else:
        main = shape.main
        update_maps = [(b"u", main), (b"p", main)] if shape.old_value else [(b"u", main)]
        names.update(
            _M=MARKER,
            _sep=SEPARATOR,
            _tuple=tuple,
            insert=_template(specs, [(b"u", main)]),
            delete=_template(specs, [(b"d", shape.deleted)]),
            update=_template(specs, update_maps),
        )
        body = _plain_body(specs, shape, tz is datetime.UTC)
    body = ["after = row.after", "before = row.before", *body]
    if repairing or shape.only_updated:
        # a \b or \f, maybe an escape that json-iterator writes long
        body += ["if 92 in out and (b'\\\\b' in out or b'\\\\f' in out):", "    out = _fix(out)"]
    body.append("return out")
    defaults = ", ".join(f"{name}={name}" for name in names)
    source = "\n".join([f"def generated(row, {defaults}):", *("    " + line for line in body)])
    return run_generated(source, "open-protocol value writer", names)["generated"]
