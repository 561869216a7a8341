"""The compiled row renderers (``render``) against the column loop they replace: tables of every
MySQL type, images with missing columns (``NA``), NULLs, values of the wrong type and dict
subclasses, as INSERT, UPDATE and DELETE. Same bytes, or the same error."""

from __future__ import annotations

import datetime
from collections import defaultdict
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.codec.dts.avro.strategies import images, tables
from tisink.codec.dts.tencent.columns import TableCodec
from tisink.codec.dts.tencent.enums import DMLType
from tisink.codec.values import zone_for
from tisink.model.events import RowChangedEvent
from tisink.model.table import ColumnInfo, TableInfo, make_table

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
ODD_VALUES = st.sampled_from([True, 1.5, "7", b"x", ["a"], {"k": 1}, 10**30, -1, ""])


@st.composite
def damaged(draw: st.DrawFn, table: TableInfo) -> dict[str, Any]:
    """An image of ``table`` with some columns dropped or given a value of another type."""
    image = draw(images(table))
    for name in list(image):
        change = draw(st.sampled_from(["keep", "keep", "keep", "drop", "odd"]))
        if change == "drop":
            del image[name]
        elif change == "odd":
            image[name] = draw(ODD_VALUES)
    return image


def outcome(render: Any, *args: Any) -> bytes | str:
    """The bytes, or the error (a CodecError naming the column; a few odd values, such as a
    bool in a DOUBLE column, escape as their converter's own error either way)."""
    try:
        return render(*args)
    except Exception as err:
        return f"{type(err).__name__}: {err}"


def compiled_change(codec: TableCodec, kind: DMLType, row: RowChangedEvent) -> bytes:
    """The one-row ``RowChange`` as ``run`` writes it: compiled, the loop when that raises."""
    return codec.run(kind, [row])[0][3]


def rows_of(table: TableInfo, before: dict, after: dict) -> list[tuple[DMLType, RowChangedEvent]]:
    return [
        (DMLType.INSERT, RowChangedEvent(1, 2, table, None, after)),
        (DMLType.UPDATE, RowChangedEvent(1, 2, table, before, after)),
        (DMLType.DELETE, RowChangedEvent(1, 2, table, before, None)),
    ]


@SETTINGS
@given(st.data(), tables())
def test_compiled_rows_equal_the_column_loop(data: st.DataObject, table: TableInfo) -> None:
    codec = TableCodec(table, datetime.UTC)
    clean = data.draw(st.booleans())
    strategy = images(table) if clean else damaged(table)
    before, after = data.draw(strategy), data.draw(strategy)
    for kind, row in rows_of(table, before, after):
        expected = outcome(codec.change_by_loop, kind, row)
        assert outcome(compiled_change, codec, kind, row) == expected
        if isinstance(expected, bytes):
            parts, size = codec.run(kind, [row, row])
            assert parts == [codec.body_head[kind], *(parts[1:4] * 2)]
            assert parts[3] == expected
            assert size == sum(map(len, parts))


@pytest.mark.parametrize("zone", ["UTC", "Asia/Shanghai"])
def test_dict_subclass_images_take_the_loop(zone: str) -> None:
    """A defaultdict's missing column is NA, as ``get`` sees it, not its default."""
    table = make_table("d", "t", 1, 1, [ColumnInfo("a", "int"), ColumnInfo("b", "int")])
    codec = TableCodec(table, zone_for(zone)[1])
    image: defaultdict[str, Any] = defaultdict(lambda: 5, {"a": 1})
    row = RowChangedEvent(1, 2, table, None, image)
    assert compiled_change(codec, DMLType.INSERT, row) == codec.change_by_loop(DMLType.INSERT, row)
    assert "b" not in image
