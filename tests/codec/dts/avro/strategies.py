"""Hypothesis strategies for the DTS Avro tests: tables of every MySQL type and transactions.

Values are drawn in the feed form (spec/feed-format.md) over each type's whole range: unsigned
bigints to 2**64-1, negative TIMEs to -838:59:59, fractions of 0 to 6 digits, binary(N) shorter
than N, JSON documents, sets in any order.
"""

from __future__ import annotations

import base64
import datetime
from typing import Any

from hypothesis import strategies as st

from tisink.model.events import RowChangedEvent
from tisink.model.mysqltypes import INTEGER_RANGES, MYSQL_TYPES
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo
from tisink.model.tso import compose_ts

TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
# schema and table names: any text MySQL takes in an identifier (no U+0000)
IDENTIFIER = st.text(
    st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), max_size=12
)
NAMES = st.text("abcdefghijklmnopqrstuvwxyz_0123456789", min_size=1, max_size=8)
TEXT_TYPES = ("char", "varchar", "tinytext", "text", "mediumtext", "longtext")
BYTES_TYPES = ("binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob")
NUMERIC = ("tinyint", "smallint", "mediumint", "int", "bigint", "float", "double", "decimal")
FRACTIONAL = ("datetime", "timestamp", "time")


@st.composite
def columns(draw: st.DrawFn, name: str) -> ColumnInfo:
    mysql_type = draw(st.sampled_from(MYSQL_TYPES))
    elements: tuple[str, ...] = ()
    if mysql_type in ("enum", "set"):
        elements = tuple(draw(st.lists(NAMES, min_size=1, max_size=6, unique=True)))
    if mysql_type in ("bit", "binary"):
        length = draw(st.integers(1, 64))
    else:
        length = draw(st.sampled_from([0, 0, 5, 11, 20, 255]))
    text = mysql_type in TEXT_TYPES or mysql_type in ("enum", "set")
    decimal = draw(st.integers(0, 6)) if mysql_type in (*FRACTIONAL, "decimal", "float") else 0
    return ColumnInfo(
        name=name,
        mysql_type=mysql_type,
        charset="utf8mb4" if text else "binary",
        collate="utf8mb4_bin" if text else "binary",
        length=length,
        decimal=decimal,
        elements=elements,
        unsigned=draw(st.booleans()) if mysql_type in NUMERIC else False,
        nullable=draw(st.booleans()),
        generated=draw(st.sampled_from([None, None, None, "stored", "virtual"])),
    )


@st.composite
def tables(draw: st.DrawFn, schema: str | None = None) -> TableInfo:
    names = draw(st.lists(NAMES, min_size=1, max_size=10, unique=True))
    cols = tuple(draw(columns(n)) for n in names)
    stored = [c.name for c in cols if not c.virtual]
    indexes: list[IndexInfo] = []
    if stored and draw(st.booleans()):
        key = tuple(draw(st.lists(st.sampled_from(stored), min_size=1, max_size=3, unique=True)))
        primary = draw(st.booleans())
        indexes.append(IndexInfo("PRIMARY" if primary else "uk_a", key, True, primary))
    return TableInfo(
        schema=schema if schema is not None else draw(IDENTIFIER),
        table=draw(IDENTIFIER),
        table_id=draw(st.integers(1, 1 << 40)),
        version=draw(st.integers(0, (1 << 64) - 1)),
        columns=cols,
        indexes=tuple(indexes),
    )


def _stamp(moment: datetime.datetime, fsp: int) -> str:
    text = moment.strftime("%Y-%m-%d %H:%M:%S")
    return text + ("." + f"{moment.microsecond:06d}"[:fsp] if fsp else "")


@st.composite
def _time(draw: st.DrawFn, fsp: int) -> str:
    sign = draw(st.sampled_from(["", "-"]))
    hours, minutes = draw(st.integers(0, 838)), draw(st.integers(0, 59))
    seconds = draw(st.integers(0, 59))
    digits = draw(st.text("0123456789", min_size=fsp, max_size=fsp))
    fraction = "." + digits if fsp else ""
    return f"{sign}{hours:02d}:{minutes:02d}:{seconds:02d}{fraction}"


def value_for(column: ColumnInfo) -> st.SearchStrategy[Any]:
    """Feed values of ``column`` (never None)."""
    t = column.mysql_type
    if t in INTEGER_RANGES:
        low, high, umax = INTEGER_RANGES[t]
        return st.integers(0, umax) if column.unsigned else st.integers(low, high)
    if t == "float":
        return st.floats(width=32, allow_nan=False, allow_infinity=False)
    if t == "double":
        return st.floats(allow_nan=False, allow_infinity=False)
    if t == "decimal":
        return st.decimals(allow_nan=False, allow_infinity=False, places=3).map(str)
    if t in TEXT_TYPES:
        return TEXT
    if t in BYTES_TYPES:
        size = column.length if t == "binary" else 40
        return st.binary(max_size=size).map(lambda b: base64.b64encode(b).decode())
    if t in ("date", "datetime", "timestamp"):
        moments = st.datetimes(datetime.datetime(1970, 1, 2), datetime.datetime(2037, 12, 31))
        if t == "date":
            return moments.map(lambda m: m.strftime("%Y-%m-%d"))
        return moments.map(lambda m: _stamp(m, column.decimal))
    if t == "time":
        return _time(column.decimal)
    if t == "year":
        return st.integers(1901, 2155) | st.just(0)
    if t == "enum":
        return st.sampled_from(column.elements)
    if t == "set":
        return st.lists(st.sampled_from(column.elements), unique=True)
    if t == "bit":
        return st.integers(0, (1 << column.length) - 1)
    if t == "json":
        scalars = st.none() | st.booleans() | st.integers(-(1 << 63), (1 << 63) - 1) | TEXT
        return st.recursive(
            scalars,
            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
            max_leaves=6,
        )
    assert t == "vector"
    return st.lists(st.floats(width=32, allow_nan=False, allow_infinity=False), max_size=5)


@st.composite
def images(draw: st.DrawFn, table: TableInfo) -> dict[str, Any]:
    image: dict[str, Any] = {}
    for column in table.stored_columns:
        null = column.nullable and draw(st.integers(0, 4)) == 0
        image[column.name] = None if null else draw(value_for(column))
    return image


@st.composite
def row_in(draw: st.DrawFn, table: TableInfo, start_ts: int, commit_ts: int) -> RowChangedEvent:
    op = draw(st.sampled_from(["INSERT", "UPDATE", "DELETE"]))
    return RowChangedEvent(
        start_ts=start_ts,
        commit_ts=commit_ts,
        table=table,
        before=draw(images(table)) if op != "INSERT" else None,
        after=draw(images(table)) if op != "DELETE" else None,
    )


COMMIT_MS = st.integers(1_600_000_000_000, 2_000_000_000_000)


@st.composite
def transactions(draw: st.DrawFn) -> list[RowChangedEvent]:
    """The rows of one transaction over one or two tables (a partition's share of it)."""
    commit_ts = compose_ts(draw(COMMIT_MS), draw(st.integers(0, (1 << 18) - 1)))
    start_ts = commit_ts - draw(st.integers(1, 1 << 30))
    table_set = draw(st.lists(tables(), min_size=1, max_size=2))
    return draw(
        st.lists(
            st.sampled_from(table_set).flatmap(lambda t: row_in(t, start_ts, commit_ts)),
            min_size=1,
            max_size=4,
        )
    )
