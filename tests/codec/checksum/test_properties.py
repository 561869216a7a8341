"""Invariants of TiDB's row checksums (``codec.checksum``), property-tested."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.codec import checksum
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table

COLUMNS = (
    ColumnInfo("id", "bigint", id=1, nullable=False),
    ColumnInfo("i", "int", id=2),
    ColumnInfo("s", "varchar", id=3, charset="utf8mb4"),
    ColumnInfo("d", "double", id=4),
    ColumnInfo("t", "datetime", id=5, decimal=6),
    ColumnInfo("m", "decimal", id=6, length=20, decimal=4),
    ColumnInfo("e", "enum", id=7, elements=("x", "y", "z")),
)
PRIMARY = IndexInfo("primary", ("id",), unique=True, primary=True)

images = st.fixed_dictionaries(
    {
        "id": st.integers(-(1 << 63), (1 << 63) - 1),
        "i": st.none() | st.integers(-(1 << 31), (1 << 31) - 1),
        "s": st.none() | st.text(max_size=30),
        "d": st.none() | st.floats(allow_nan=False, allow_infinity=False),
        "t": st.none()
        | st.builds(
            "{:04d}-{:02d}-{:02d} {:02d}:{:02d}:{:02d}.{:06d}".format,
            st.integers(1, 9999),
            st.integers(1, 12),
            st.integers(1, 28),
            st.integers(0, 23),
            st.integers(0, 59),
            st.integers(0, 59),
            st.integers(0, 999999),
        ),
        "m": st.none()
        | st.decimals(min_value=-(10**15), max_value=10**15, places=4).map(lambda d: f"{d:f}"),
        "e": st.none() | st.sampled_from(["x", "y", "z"]),
    }
)


def table(order: list[int] | None = None) -> TableInfo:
    columns = [COLUMNS[i] for i in order] if order else list(COLUMNS)
    return make_table("s", "t", 7, 1, columns, [PRIMARY])


@settings(max_examples=200, deadline=None)
@given(images, st.sampled_from([c.name for c in COLUMNS if c.name != "id"]), st.data())
def test_any_change_of_a_value_changes_both_checksums(
    image: dict[str, Any], name: str, data: st.DataObject
) -> None:
    other = data.draw(images.map(lambda d: d[name]))
    same_decimal = (
        name == "m" and None not in (other, image[name]) and float(other) == float(image[name])
    )
    if other == image[name] or same_decimal:
        return
    changed = {**image, name: other}
    t = table()
    assert checksum.column_checksum(t, changed) != checksum.column_checksum(t, image)
    assert checksum.raw_checksum(t, changed) != checksum.raw_checksum(t, image)


@settings(max_examples=100, deadline=None)
@given(images, st.permutations(range(len(COLUMNS))))
def test_the_schemas_column_order_does_not_matter(image: dict[str, Any], order: list[int]) -> None:
    """TiDB sorts by column id: the column-level checksum (``RowData`` sorted) and the row
    value (not-null ids sorted, then null ids sorted) are the same in any column order."""
    base, shuffled = table(), table(order)
    assert checksum.column_checksum(shuffled, image) == checksum.column_checksum(base, image)
    assert checksum.row_value(shuffled, image) == checksum.row_value(base, image)
    assert checksum.raw_checksum(shuffled, image) == checksum.raw_checksum(base, image)


@settings(max_examples=100, deadline=None)
@given(images)
def test_an_added_null_column_leaves_v1_and_changes_v2(image: dict[str, Any]) -> None:
    """ADD COLUMN: a new column that is NULL adds nothing to the column-level checksum (V1),
    while the row value (V2) lists its id among the NULL columns: why V2 tells the row
    versions apart."""
    base = table()
    added = make_table("s", "t", 7, 2, [*COLUMNS, ColumnInfo("new", "int", id=8)], [PRIMARY])
    with_null = {**image, "new": None}
    assert checksum.column_checksum(added, with_null) == checksum.column_checksum(base, image)
    assert checksum.raw_checksum(added, with_null) != checksum.raw_checksum(base, image)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, (1 << 32) - 1))
def test_a_corrupted_value_is_never_the_value_nor_zero(value: int) -> None:
    wrong = checksum.corrupted_value(value)
    assert wrong != value and wrong != 0 and 0 <= wrong < 1 << 32
