"""The reader's fast path (the generated row builders) agrees with its precise path.

For random tables and row records, valid and corrupted, a parser with builders and one whose
builders are taken away (every row then goes ``_checked_row``'s way) yield the same records
or fail with the same message; and the builders do take the common rows.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.feed.feed_strategies import images, tables, value_of
from tests.feed.format.test_image_check import _ODD_VALUES
from tisink.feed.errors import FeedError
from tisink.feed.format.reader import FeedParser
from tisink.feed.format.records import FeedRow
from tisink.feed.format.row_builder import light_row
from tisink.feed.format.writer import ddl_record
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent
from tisink.model.table import ColumnInfo, TableInfo, make_table

_COMMIT, _START = 5000, 4000


def _line(record: dict[str, Any]) -> bytes:
    try:
        return orjson.dumps(record) + b"\n"
    except TypeError:  # an integer beyond 64 bits
        return json.dumps(record, ensure_ascii=False).encode() + b"\n"


def _outcome(lines: list[bytes], fast: bool) -> list[Any]:
    """What a parser makes of ``lines`` (a CREATE, then rows): the records, each as a tuple
    of all its event's fields, or the error's message last."""
    parser = FeedParser()
    out: list[Any] = []
    try:
        for number, raw in enumerate(lines):
            if number == 1 and not fast:
                parser.schemas.builders.clear()
            for record in parser.parse_lines([raw], "t.jsonl"):
                assert type(record) is FeedRow or number == 0
                if type(record) is FeedRow:
                    event = record.row
                    out.append(tuple(getattr(event, name) for name in RowChangedEvent.__slots__))
                    out.append(tuple(record.source))
    except FeedError as err:
        out.append(str(err))
    except TypeError as err:  # show() cannot print an integer beyond 64 bits (both paths)
        out.append(f"TypeError: {err}")
    return out


@st.composite
def _row_records(draw: st.DrawFn, table: TableInfo) -> dict[str, Any]:
    """A row record of ``table``, maybe with one thing wrong or unusual about it."""
    op = draw(st.sampled_from(["INSERT", "UPDATE", "DELETE"]))
    record: dict[str, Any] = {
        "type": "row",
        "commitTs": _COMMIT,
        "startTs": _START,
        "tableID": table.table_id,
        "op": op,
    }
    if op != "DELETE":
        record["after"] = draw(images(table))
    if op != "INSERT":
        record["before"] = draw(images(table))
    image = record.get("after", record.get("before"))
    columns = table.stored_columns
    col = columns[draw(st.integers(0, len(columns) - 1))]
    change = draw(st.integers(0, 12))
    if change == 1:
        image[col.name] = draw(st.sampled_from(_ODD_VALUES) | value_of(col))
    elif change == 2:
        del image[col.name]
    elif change == 3:
        image["unknown"] = 1
    elif change == 4:
        image[col.name] = image.pop(col.name)  # another column order
    elif change == 5:
        record[draw(st.sampled_from(["before", "after", "schema", "table", "extra"]))] = None
    elif change == 6:
        record["op"] = draw(st.sampled_from(["INSERT", "UPDATE", "DELETE", "insert", None]))
    elif change == 7:
        key = draw(st.sampled_from(["commitTs", "startTs", "tableID", "type"]))
        record[key] = draw(st.sampled_from([0, -1, 1, 10**6, 1 << 64, 5000.0, True, "5000"]))
    elif change == 8:
        del record[draw(st.sampled_from(sorted(record)))]
    return record


@settings(deadline=None)
@given(st.data())
def test_fast_and_precise_paths_agree(data: st.DataObject) -> None:
    table = data.draw(tables())
    create = DDLEvent(_START - 1, DDLType.CREATE, table=table)
    rows = data.draw(st.lists(_row_records(table), min_size=1, max_size=3))
    lines = [_line(ddl_record(create)), *map(_line, rows)]
    assert _outcome(lines, fast=True) == _outcome(lines, fast=False)


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_common_rows_take_the_builder(data: st.DataObject) -> None:
    table = data.draw(tables())
    parser = FeedParser()
    parser.schemas.apply(DDLEvent(1, DDLType.CREATE, table=table))
    build = parser.schemas.builders[table.table_id]
    after = data.draw(images(table))
    record = {"type": "row", "commitTs": 3, "startTs": 2, "tableID": table.table_id}
    event = build({**record, "op": "INSERT", "after": after}, 0, -1, 99)
    taken = event is not None
    # a valid image the fast image check refuses (a rare shape) may go the precise way
    assert taken == parser.schemas.live[table.table_id].valid(after)
    if event is not None:
        assert (event.table, event.after, event.before, event.approximate_size) == (
            table,
            after,
            None,
            99,
        )


@settings(deadline=None)
@given(st.data())
def test_a_light_builder_takes_what_the_builder_takes_and_gives_its_rows(
    data: st.DataObject,
) -> None:
    """Stage one's light builder (``LightRow``s, no events) makes the same checks: for any
    row record, valid or not, it gives the builder's event's fields, or None where it does."""
    table = data.draw(tables())
    schemas = FeedParser().schemas
    schemas.apply(DDLEvent(1, DDLType.CREATE, table=table))
    build, light = schemas.builders[table.table_id], schemas.light_builder(table.table_id)
    assert light is not None and schemas.light_builders[table.table_id] is light
    obj = orjson.loads(_line(data.draw(_row_records(table))))
    last_ts = data.draw(st.sampled_from([0, _COMMIT, _COMMIT + 1]))
    resolved = data.draw(st.sampled_from([-1, _COMMIT - 1, _COMMIT]))
    event = build(obj, last_ts, resolved, 7)
    assert light(obj, last_ts, resolved, 0) == (None if event is None else light_row(event))


def test_a_table_changed_or_gone_drops_its_light_builder() -> None:
    table = make_table("s", "t", 7, 1, [ColumnInfo("id", "int")], [])
    schemas = FeedParser().schemas
    schemas.apply(DDLEvent(1, DDLType.CREATE, table=table))
    first = schemas.light_builder(table.table_id)
    schemas.apply(DDLEvent(2, DDLType.ALTER, table=table, pre_table=table))
    assert table.table_id not in schemas.light_builders
    assert schemas.light_builder(table.table_id) is not first
    schemas.apply(DDLEvent(3, DDLType.ERASE, pre_table=table))
    assert table.table_id not in schemas.light_builders
    assert schemas.light_builder(table.table_id) is None
