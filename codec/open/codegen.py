"""One generated function per table version and column choice writing a row's value JSON.

The value is ``{"u":{...}}`` (INSERT), ``{"d":{...}}`` (DELETE) or ``{"u":{...},"p":{...}}``
(UPDATE; ``p`` with ``output-old-value``), each map holding ``"name":{"t":..,"h":true,"f":..,
"v":..}`` per column in table order (ticdc writes them with ``JSONWriter`` in that order). The
common feed values are handled inline (in-range integers, strings), NULL is ``null``, the rest
goes through the column's converter, which gives the exact value or the error. Names and
converters reach the code as default arguments (fast locals), never through the source text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from tisink.codec.debezium.jsonwriter import dumps as repairing_dumps
from tisink.codec.debezium.jsonwriter import escape_fix
from tisink.codec.open.columns import ColumnSpec
from tisink.codec.open.values import Converter
from tisink.model.mysqltypes import INTEGER_RANGES, TypeFamily

ValueWriter = Callable[[Any], bytes]

_TEXTS = (TypeFamily.DATE, TypeFamily.DATETIME, TypeFamily.TIME)


@dataclass(frozen=True)
class Shape:
    """Which columns each map holds: ``main`` indexes the columns of ``u`` and ``p``,
    ``deleted`` those of ``d``; ``old_value`` writes ``p``; ``only_updated`` keeps in ``p``
    the columns whose value changed."""

    main: tuple[int, ...]
    deleted: tuple[int, ...]
    old_value: bool
    only_updated: bool


def _expression(i: int, spec: ColumnSpec) -> str:
    v, column = f"v{i}", spec.column
    slow = f"None if {v} is None else c{i}({v})"
    family = column.family
    if family in (TypeFamily.INT, TypeFamily.BIGINT):
        low, high, unsigned_max = INTEGER_RANGES[column.mysql_type]
        if column.unsigned:
            low, high = 0, unsigned_max
        return f"{v} if _type({v}) is int and {low} <= {v} <= {high} else ({slow})"
    if (family is TypeFamily.STRING and column.mysql_type in ("char", "varchar")) or (
        family in _TEXTS
    ):
        return f"{v} if _type({v}) is str else ({slow})"
    return slow


def _map(specs: Sequence[ColumnSpec], positions: tuple[int, ...], image: str) -> list[str]:
    """Lines reading ``image`` and leaving its map in ``m``."""
    lines = [f"    v{i} = {image}[k{i}]" for i in positions]
    entries = []
    for i in positions:
        spec = specs[i]
        handle = "'h': True, " if spec.handle else ""
        fixed = f"'t': {spec.type_code}, {handle}'f': {spec.flag}"
        entries.append(f"k{i}: {{{fixed}, 'v': {_expression(i, spec)}}}")
    lines.append("    m = {" + ", ".join(entries) + "}")
    return lines


def _indent(lines: list[str]) -> list[str]:
    return ["    " + line for line in lines]


def compile_value_writer(
    specs: Sequence[ColumnSpec],
    converters: Sequence[Converter],
    shape: Shape,
    repairing: bool = False,
) -> ValueWriter:
    """``write(row) -> bytes``; ``repairing`` dumps through the writer that turns lone
    surrogates into U+FFFD (slower; used once orjson refused a row)."""
    namespace: dict[str, Any] = {
        "_type": type,
        "_dumps": repairing_dumps if repairing else orjson.dumps,
        "_fix": escape_fix,
    }
    for i, (spec, convert) in enumerate(zip(specs, converters, strict=True)):
        namespace[f"k{i}"], namespace[f"c{i}"] = spec.name, convert
    update = [*_map(specs, shape.main, "after"), "    u = m"]
    if shape.old_value:
        update += _map(specs, shape.main, "before")
        if shape.only_updated:
            update.append("    m = {k: c for k, c in m.items() if before[k] != after[k]}")
        update.append("    out = _dumps({'u': u, 'p': m})")
    else:
        update.append("    out = _dumps({'u': u})")
    body = [
        "    after = row.after",
        "    before = row.before",
        "    if before is None:",
        *_indent(_map(specs, shape.main, "after")),
        "        out = _dumps({'u': m})",
        "    elif after is None:",
        *_indent(_map(specs, shape.deleted, "before")),
        "        out = _dumps({'d': m})",
        "    else:",
        *_indent(update),
        "    if 92 in out:",  # a backslash: maybe a \b or \f json-iterator writes long
        "        out = _fix(out)",
        "    return out",
    ]
    defaults = ", ".join(f"{name}={name}" for name in namespace)
    source = "\n".join([f"def generated(row, {defaults}):", *body])
    exec(compile(source, "<open-value-writer>", "exec"), namespace)
    return namespace["generated"]
