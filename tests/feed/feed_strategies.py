"""Hypothesis strategies: tables with columns of every MySQL type, and valid row images."""

from __future__ import annotations

import base64
import datetime as dt
from typing import Any

from hypothesis import strategies as st

from tisink.model.mysqltypes import DEFAULT_LENGTH, INTEGER_RANGES, MYSQL_TYPES
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table

_TEXT = {"charset": "utf8mb4", "collate": "utf8mb4_bin"}
_NAMES = st.text(
    st.characters(min_codepoint=0x20, max_codepoint=0x2FF), min_size=1, max_size=8
).filter(lambda name: not name.isspace())  # a blank name is refused (reader: file:line)
_TS_MIN = dt.datetime(1970, 1, 1, 0, 0, 1)
_TS_MAX = dt.datetime(2038, 1, 19, 3, 14, 7)


@st.composite
def column_types(draw: st.DrawFn, mysql_type: str) -> dict[str, Any]:
    """The dataType part of a column of ``mysql_type`` (length, scale, elements, flags)."""
    kw: dict[str, Any] = {"mysql_type": mysql_type}
    if mysql_type in INTEGER_RANGES or mysql_type in ("float", "double"):
        kw["unsigned"] = draw(st.booleans())
        kw["length"] = DEFAULT_LENGTH[(mysql_type, kw["unsigned"])]
    elif mysql_type == "decimal":
        kw["length"] = draw(st.integers(1, 65))
        kw["decimal"] = draw(st.integers(0, min(30, kw["length"])))
        kw["unsigned"] = draw(st.booleans())
    elif mysql_type in ("char", "varchar", "binary", "varbinary"):
        kw["length"] = draw(st.integers(1, 40))
    elif mysql_type in ("datetime", "timestamp", "time"):
        kw["decimal"] = draw(st.integers(0, 6))
    elif mysql_type == "bit":
        kw["length"] = draw(st.integers(1, 64))
    elif mysql_type in ("enum", "set"):
        kw["elements"] = tuple(draw(st.lists(_NAMES, min_size=1, max_size=5, unique=True)))
    elif (mysql_type, False) in DEFAULT_LENGTH:
        kw["length"] = DEFAULT_LENGTH[(mysql_type, False)]
    if mysql_type in ("char", "varchar", "tinytext", "text", "mediumtext", "longtext"):
        kw.update(_TEXT)
    return kw


@st.composite
def tables(draw: st.DrawFn, table_id: int | None = None, version: int = 1) -> TableInfo:
    """A table of 1-8 columns of any types; the first column is a NOT NULL int primary key."""
    others = st.lists(_NAMES.filter(lambda n: n != "id"), min_size=1, max_size=7, unique=True)
    names = draw(others)
    columns = [ColumnInfo("id", "int", length=11, nullable=False)]
    for name in names:
        kw = draw(column_types(draw(st.sampled_from(MYSQL_TYPES))))
        generated = draw(st.sampled_from([None, None, None, "virtual", "stored"]))
        columns.append(ColumnInfo(name, nullable=draw(st.booleans()), generated=generated, **kw))
    return make_table(
        draw(_NAMES),
        draw(_NAMES),
        draw(st.integers(1, 1 << 40)) if table_id is None else table_id,
        version,
        columns,
        [IndexInfo("primary", ("id",), unique=True, primary=True)],
    )


def _json_values() -> st.SearchStrategy[Any]:
    scalars = (
        st.none()
        | st.booleans()
        | st.integers(-(1 << 63), (1 << 64) - 1)
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(max_size=10)
    )
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
        max_leaves=8,
    )


def _fraction(fsp: int, micros: int) -> str:
    return f".{micros:06d}"[: fsp + 1] if fsp else ""


def value_of(col: ColumnInfo) -> st.SearchStrategy[Any]:
    """Valid feed values of ``col`` (never NULL)."""
    t = col.mysql_type
    if t in INTEGER_RANGES:
        lo, hi, uhi = INTEGER_RANGES[t]
        return st.integers(0, uhi) if col.unsigned else st.integers(lo, hi)
    if t == "year":
        return st.just(0) | st.integers(1901, 2155)
    if t == "bit":
        return st.integers(0, (1 << col.length) - 1)
    if t in ("float", "double"):
        floats = st.floats(
            min_value=0.0 if col.unsigned else None,
            allow_nan=False,
            allow_infinity=False,
            width=32 if t == "float" else 64,
        )
        return floats | st.integers(0, 1000)
    if t == "decimal":
        whole = st.integers(0, 10 ** (col.length - col.decimal) - 1)
        frac = st.integers(0, 10**col.decimal - 1)
        sign = st.just("") if col.unsigned else st.sampled_from(["", "-"])
        return st.builds(
            lambda s, w, f: f"{s}{w}" + (f".{f:0{col.decimal}d}" if col.decimal else ""),
            sign,
            whole,
            frac,
        )
    if t in ("char", "varchar"):
        return st.text(max_size=col.length)
    if col.binary:
        size = min(col.length or 40, 40)
        return st.binary(max_size=size).map(lambda b: base64.b64encode(b).decode())
    if t.endswith("text"):
        return st.text(max_size=60)
    if t == "date":
        return st.dates().map(lambda d: f"{d.year:04d}-{d.month:02d}-{d.day:02d}")
    if t in ("datetime", "timestamp"):
        bounds = {"min_value": _TS_MIN, "max_value": _TS_MAX} if t == "timestamp" else {}
        return st.datetimes(**bounds).map(
            lambda d: f"{d.year:04d}-{d:%m-%d %H:%M:%S}" + _fraction(col.decimal, d.microsecond)
        )
    if t == "time":
        return st.builds(
            lambda neg, h, m, s, us: f"{neg}{h:02d}:{m:02d}:{s:02d}" + _fraction(col.decimal, us),
            st.sampled_from(["", "-"]),
            st.integers(0, 837),
            st.integers(0, 59),
            st.integers(0, 59),
            st.integers(0, 999_999),
        )
    if t == "enum":
        return st.sampled_from(col.elements)
    if t == "set":
        return st.lists(st.sampled_from(col.elements), unique=True)
    if t == "json":
        # a top-level JSON null reads as SQL NULL: the feed cannot tell them apart
        return _json_values().filter(lambda v: v is not None)
    if t == "vector":
        return st.lists(st.floats(allow_nan=False, allow_infinity=False, width=32), max_size=4)
    raise AssertionError(f"no strategy for {t}")


@st.composite
def images(draw: st.DrawFn, table: TableInfo) -> dict[str, Any]:
    """A valid row image: every stored column, NULL only where nullable."""
    image = {}
    for col in table.stored_columns:
        null = col.nullable and draw(st.integers(0, 4)) == 0
        image[col.name] = None if null else draw(value_of(col))
    return image


Stage = tuple[str, int, int, int]
"""A ``--rate`` stage as drawn: kind, start rate, end rate, milliseconds."""


def profile_text(stages: list[Stage]) -> str:
    """The ``--rate`` text of drawn stages (``ramp:a-b/Nms``, ``hold:b/Nms``, ``idle:Nms``)."""
    parts = []
    for kind, a, b, ms in stages:
        if kind == "idle":
            parts.append(f"idle:{ms}ms")
        elif kind == "ramp":
            parts.append(f"ramp:{a}-{b}/{ms}ms")
        else:
            parts.append(f"{kind}:{b}/{ms}ms")
    return ",".join(parts)
