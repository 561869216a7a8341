"""The compiled image writers (``compiled``) against the column loop they replace: tables of
every MySQL type, images with missing columns, NULLs, values of the wrong type (a bool for an
integer, a str subclass for text). Same bytes, or the same error."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.codec.dts.avro.strategies import images, tables
from tisink.codec.dts.avro.columns import column_writers, encode_image
from tisink.codec.dts.avro.compiled import compile_image
from tisink.codec.dts.avro.layout import table_layout
from tisink.model.events import RowChangedEvent
from tisink.model.table import TableInfo

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
HEAD = b"\x04"


class Text(str):
    """A str subclass: written by the column's writer, not inline."""


ODD_VALUES = st.sampled_from([True, 1.5, "7", b"x", ["a"], 10**30, -1, "", Text("t")])


@st.composite
def damaged(draw: st.DrawFn, table: TableInfo) -> dict[str, Any]:
    image = draw(images(table))
    for name in list(image):
        change = draw(st.sampled_from(["keep", "keep", "keep", "drop", "odd"]))
        if change == "drop":
            del image[name]
        elif change == "odd":
            image[name] = draw(ODD_VALUES)
    return image


def outcome(write: Any, *args: Any) -> bytes | str:
    try:
        return write(*args)
    except Exception as err:
        return f"{type(err).__name__}: {err}"


@SETTINGS
@given(st.data(), tables())
def test_compiled_images_equal_the_column_loop(data: st.DataObject, table: TableInfo) -> None:
    layout = table_layout(table)
    writers = column_writers(layout.names, layout.mappings)
    compiled = compile_image(HEAD, writers, layout.mappings)
    image = data.draw(images(table) if data.draw(st.booleans()) else damaged(table))
    row = RowChangedEvent(1, 2, table, None, image)
    expected = outcome(lambda: HEAD + encode_image(row, image, writers))
    assert outcome(compiled, row, image) == expected
