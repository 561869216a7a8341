"""One generated function per table version writing a row's key and value bytes.

The common feed values are handled inline (in-range integers and strings pass as they are,
ENUM names through a dict), NULLs take the column's precomputed NULL value, everything else
calls the column's converter, which gives the exact result or the error. Each column is
converted once and shared by the image and the key. Names, converters and templates reach the
code as default arguments (fast locals), never through the source text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from tisink.codec.debezium.jsonwriter import escape_fix
from tisink.core.codegen import run_generated
from tisink.model.mysqltypes import INTEGER_RANGES, TypeFamily
from tisink.model.table import ColumnInfo

RowEncoder = Callable[[Any, int], tuple[bytes, bytes]]


def _expression(i: int, column: ColumnInfo) -> str:
    """The payload value of column ``i`` (read into ``v{i}``)."""
    v, family = f"v{i}", column.family
    slow = f"n{i} if {v} is None else c{i}({v})"
    if family in (TypeFamily.INT, TypeFamily.BIGINT) and not (
        column.unsigned and column.mysql_type == "bigint"
    ):
        return f"{v} if _type({v}) is int and lo{i} <= {v} <= hi{i} else ({slow})"
    if family is TypeFamily.STRING:
        return f"{v} if _type({v}) is str else ({slow})"
    if family is TypeFamily.ENUM:
        return f"n{i} if {v} is None else e{i}[{v}]"
    return slow


def _image(name: str, exprs: list[str], prefix: str) -> list[str]:
    """Lines converting image ``name`` into locals ``{prefix}{i}``."""
    lines = []
    for i, expr in enumerate(exprs):
        lines.append(f"    v{i} = {name}[k{i}]")
        lines.append(f"    {prefix}{i} = {expr}")
    return lines


def _dumped(target: str, prefix: str, count: int) -> list[str]:
    display = ", ".join(f"k{i}: {prefix}{i}" for i in range(count))
    return [
        f"    {target} = _dumps({{{display}}})",
        f"    if 92 in {target}:",  # a backslash: maybe a \b or \f to rewrite
        f"        {target} = _fix({target})",
    ]


def compile_row_encoder(
    columns: list[tuple[ColumnInfo, Callable[[Any], Any], Any]],
    key_positions: list[int],
    templates: dict[str, bytes],
    key_template: bytes,
    old_value: bool,
    start_ts: bool,
) -> RowEncoder:
    """``encode(row, now_ms) -> (key, value)`` for rows of one table version. ``columns`` are
    the stored columns with their converter and NULL value; ``key_positions`` index the handle
    key columns among them."""
    namespace: dict[str, Any] = {
        "_type": type,
        "_dumps": orjson.dumps,
        "_fix": escape_fix,
        "insert": templates["c"],
        "delete": templates["d"],
        "update": templates["u"],
        "key_template": key_template,
    }
    exprs = []
    for i, (column, convert, null) in enumerate(columns):
        namespace[f"k{i}"], namespace[f"c{i}"], namespace[f"n{i}"] = column.name, convert, null
        if column.family in (TypeFamily.INT, TypeFamily.BIGINT):
            low, high, unsigned_max = INTEGER_RANGES[column.mysql_type]
            namespace[f"lo{i}"], namespace[f"hi{i}"] = (
                (0, unsigned_max)
                if column.unsigned
                else (
                    low,
                    high,
                )
            )
        if column.family is TypeFamily.ENUM:
            namespace[f"e{i}"] = {name: name for name in ("", *column.elements)}
        exprs.append(_expression(i, column))
    count = len(columns)
    key_display = ", ".join(f"k{i}: {{p}}{i}" for i in key_positions)
    numbers = "ts >> 18, ts, row.start_ts, now_ms" if start_ts else "ts >> 18, ts, now_ms"

    def key_lines(prefix: str) -> list[str]:
        return [
            f"    key = _dumps({{{key_display.format(p=prefix)}}})",
            "    if 92 in key:",
            "        key = _fix(key)",
            "    key = key_template % key",
        ]

    body = [
        "    ts = row.commit_ts",
        "    after = row.after",
        "    before = row.before",
        "    if before is None:",
        *("    " + line for line in _image("after", exprs, "a")),
        *("    " + line for line in _dumped("data", "a", count)),
        *("    " + line for line in key_lines("a")),
        f"        return key, insert % ({numbers}, data)",
        "    if after is None:",
        *("    " + line for line in _image("before", exprs, "b")),
        *("    " + line for line in _dumped("old", "b", count)),
        *("    " + line for line in key_lines("b")),
        f"        return key, delete % ({numbers}, old)",
        *(_image("before", exprs, "b") + _dumped("old", "b", count) if old_value else []),
        *_image("after", exprs, "a"),
        *_dumped("data", "a", count),
        *key_lines("a"),
        f"    return key, update % ({numbers}, {'old, data' if old_value else 'data'})",
    ]
    defaults = ", ".join(f"{name}={name}" for name in namespace)
    source = "\n".join([f"def generated(row, now_ms, {defaults}):", *body])
    return run_generated(source, "debezium row writer", namespace)["generated"]
