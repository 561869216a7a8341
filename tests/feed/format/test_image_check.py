"""The generated image check is never looser than the detailed checks, and passes real rows.

``ImageValidator.valid`` is the one-call check every row pays for; ``problem`` explains a
refusal. A True from ``valid`` must mean ``problem`` finds nothing, whatever the image; the
other way round it may be stricter (rare shapes go the detailed way), but the rows a feed
normally carries must pass it, or the reader loses its speed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.feed.feed_strategies import images, tables, value_of
from tisink.feed.format.records import FeedRow
from tisink.feed.format.validator import ImageValidator
from tisink.feed.workload import generate_records
from tisink.model.mysqltypes import MYSQL_TYPES
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table

_ODD_VALUES = [
    None,
    True,
    False,
    0,
    -1,
    1 << 64,
    -(1 << 63) - 1,
    1.5,
    -0.0,
    3.5e38,
    float("inf"),
    "",
    "x",
    "0",
    "-0",
    "00.10",
    ".5",
    "5.",
    "1e5",
    "١٢٣",  # Arabic-Indic digits: \d matches them, the fast check does not
    "AAECAw==",
    "AB==",
    "AAE=",
    "AAF=",
    "A===",
    "YWJj\n",
    "2023-02-29",
    "2024-02-29",
    "2023-02-30",
    "2023-04-31",
    "2023-00-31",
    "2023-13-01",
    "0000-00-00",
    "2023-06-15 24:00:00",
    "2023-06-15 23:59:60",
    "2023-06-15 12:00:00.1234567",
    "2023-06-15T12:00:00",
    "1970-01-01 00:00:00",
    "1970-01-01 00:00:01",
    "1970-00-15 10:00:00",
    "2038-01-19 03:14:07",
    "2038-01-19 03:14:08",
    "0000-00-00 00:00:00",
    "838:59:59",
    "-838:59:59.000001",
    "839:00:00",
    "12:60:00",
    "99:00:00.5",
    "a",
    "b",
    ["a"],
    ["a", "a"],
    [1, 2.5],
    [[1]],
    [],
    {},
    {"a": 1},
]


def _edge_columns() -> list[ColumnInfo]:
    text = {"charset": "utf8mb4", "collate": "utf8mb4_bin"}
    return [
        ColumnInfo("d0", "decimal", length=4, decimal=4),
        ColumnInfo("d1", "decimal", length=2, decimal=3),
        ColumnInfo("d2", "decimal", length=10, decimal=0, unsigned=True),
        ColumnInfo("tt", "tinytext", length=8, **text),
        ColumnInfo("vc", "varchar", length=2, **text),
        ColumnInfo("b4", "binary", length=4),
        ColumnInfo("vb", "varbinary", length=0),
        ColumnInfo("ts", "timestamp", decimal=0),
        ColumnInfo("t6", "time", decimal=6),
        ColumnInfo("y", "year", length=4, unsigned=True),
        ColumnInfo("e", "enum", elements=("a", "b"), **text),
        ColumnInfo("s", "set", elements=("a", "b"), **text),
        ColumnInfo("j", "json", nullable=False),
        ColumnInfo("v", "vector", length=2),
        *(ColumnInfo(f"c_{t}", t) for t in MYSQL_TYPES if t not in ("enum", "set")),
    ]


def _agree(validator: ImageValidator, image: Any) -> None:
    if validator.valid(image):
        assert validator.problem(image) is None, image


@settings(deadline=None)
@given(st.data())
def test_valid_images_and_their_corruptions(data: st.DataObject) -> None:
    table = data.draw(tables())
    validator = ImageValidator(table)
    image = data.draw(images(table))
    _agree(validator, image)
    columns = table.stored_columns
    col = columns[data.draw(st.integers(0, len(columns) - 1))]
    odd = data.draw(st.sampled_from(_ODD_VALUES) | value_of(col))
    _agree(validator, {**image, col.name: odd})
    _agree(validator, {k: v for k, v in image.items() if k != col.name})
    _agree(validator, {**image, "unknown": 1})


def test_odd_values_of_every_type() -> None:
    primary = [IndexInfo("primary", ("id",), unique=True, primary=True)]
    for col in _edge_columns():
        for nullable in (True, False):
            table = make_table(
                "s",
                "t",
                1,
                1,
                [ColumnInfo("id", "int", nullable=False), replace(col, nullable=nullable)],
                primary,
            )
            validator = ImageValidator(table)
            for value in _ODD_VALUES:
                _agree(validator, {"id": 1, col.name: value})
            _agree(validator, [])
            _agree(validator, {"id": 1})


def test_generated_rows_take_the_fast_check() -> None:
    validators: dict[int, ImageValidator] = {}
    seen = passed = 0
    for name in ("all-types", "demo"):
        for record in generate_records(name, 3, 3000):
            if type(record) is not FeedRow:
                continue
            table: TableInfo = record.row.table
            validator = validators.get(id(table))
            if validator is None or validator.table is not table:
                validator = validators[id(table)] = ImageValidator(table)
            for image in (record.row.before, record.row.after):
                if image is not None:
                    seen += 1
                    passed += validator.valid(image)
                    assert validator.problem(image) is None
    assert passed >= 0.95 * seen, (passed, seen)
