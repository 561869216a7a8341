"""The reader's fast path: one generated function per table version that takes a common row
record whole and builds its event.

A builder tests the record's fields, its op and images (``image_check``'s statements, inline
for each image) in one straight run of code, with no per-row dispatch. It answers only "this
is the common shape and valid": anything else (a missing or extra field, ``"before": null``,
an odd value, a row out of order) makes it return None, and the reader takes the precise path
(``FeedParser._checked_row``), which names the error or accepts the rare shape. So a builder
may be stricter than that path, never looser, and builds the very event it would
(``tests/feed/test_row_builder.py`` checks both).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tisink.feed.format.image_check import define, image_statements
from tisink.model.events import Image, RowChangedEvent
from tisink.model.table import TableInfo
from tisink.model.tso import LATEST_TS

RowBuilder = Callable[[Any, int, int, int], RowChangedEvent | None]
"""``build(obj, last_ts, resolved, size)``: the event of the parsed row record ``obj`` (of
``size`` bytes) read after commitTs ``last_ts`` and resolved ts ``resolved``, or None."""
LightRow = tuple[int, TableInfo, Image | None, Image | None, int]
"""A row as its event would hold it, without the event: (commitTs, table, before, after,
startTs)."""
LightRowBuilder = Callable[[Any, int, int, int], LightRow | None]
"""``build`` of a ``LightRow`` instead of the event."""

_HEAD = """\
    try:
        commit_ts = obj["commitTs"]
        start_ts = obj["startTs"]
        if not (
            obj["type"] == "row"
            and _type(obj["tableID"]) is int
            and _type(commit_ts) is int
            and _type(start_ts) is int
            and 0 <= start_ts <= commit_ts <= _max_ts
            and resolved < commit_ts
            and last_ts <= commit_ts
        ):
            return None
        op = obj["op"]
        if op == "INSERT":
            fields = 6
            before = None
            image = after = obj["after"]
        elif op == "DELETE":
            fields = 6
            after = None
            image = before = obj["before"]
        elif op == "UPDATE":
            fields = 7
            after = obj["after"]
            image = before = obj["before"]"""
_MIDDLE = """\
            image = after
        else:
            return None
        if _len(obj) != fields:
            return None"""
_TAIL = """\
    except Exception:  # a missing field, a value of an odd type
        return None
    return """
_EVENT = "_event(start_ts, commit_ts, _table, before, after, approximate_size=size)"
_LIGHT = "(commit_ts, _table, before, after, start_ts)"


def compile_row_builder(table: TableInfo) -> RowBuilder:
    """The builder of ``table``'s rows (see the module's docstring)."""
    build: RowBuilder = _compile(table, _EVENT, "row builder")
    return build


def compile_light_row_builder(table: TableInfo) -> LightRowBuilder:
    """The builder of ``table``'s rows for a reader that only routes them (a Spark feed's
    stage one): the same checks, and a ``LightRow`` where the event would be, which costs a
    tenth of building the event (``size`` is not read)."""
    build: LightRowBuilder = _compile(table, _LIGHT, "light row builder")
    return build


def light_row(row: RowChangedEvent) -> LightRow:
    """The ``LightRow`` of an event (a row the reader read its precise way)."""
    return row.commit_ts, row.table, row.before, row.after, row.start_ts


def light_event(row: LightRow) -> RowChangedEvent:
    """The event of a ``LightRow`` (the one its table's builder would have built, but for the
    size, which routing does not read)."""
    ts, table, before, after, start_ts = row
    return RowChangedEvent(start_ts, ts, table, before, after)


def _compile(table: TableInfo, result: str, what: str) -> Any:
    statements, constants = image_statements(table, "return None")
    constants.update(_table=table, _event=RowChangedEvent, _max_ts=LATEST_TS)
    source = "\n".join(
        [
            "def build(obj, last_ts, resolved, size):",
            _HEAD,
            *(f"            {line}" for line in statements),  # the before image of an UPDATE
            _MIDDLE,
            *(f"        {line}" for line in statements),  # the one image left to test
            _TAIL + result,
        ]
    )
    return define(source, "build", constants, f"{what} of {table.qualified_name}")
