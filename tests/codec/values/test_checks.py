"""The column a failed row is reported by, whatever the protocol."""

from __future__ import annotations

from tisink.codec.values.checks import failing_column, integer_text
from tisink.model import ColumnInfo

ID, NAME = ColumnInfo("id", "int"), ColumnInfo("name", "varchar")
COLUMNS = [(ID, integer_text), (NAME, str.upper)]


def test_the_first_failing_column_of_the_first_image_is_named() -> None:
    failure = failing_column("shop.t", ({"id": 1, "name": None}, {"id": "x"}), COLUMNS)
    assert (
        str(failure) == "shop.t: column 'id': cannot render int value 'x': want an integer, got str"
    )


def test_a_missing_column_is_named_and_a_good_row_gives_none() -> None:
    failure = failing_column("shop.t", (None, {"id": 1}), COLUMNS)
    assert str(failure) == "shop.t: column 'name': missing from the row image"
    assert failing_column("shop.t", ({"id": 1, "name": "a"},), COLUMNS) is None
