"""Bad row images are refused with the table and the column named."""

from __future__ import annotations

import pytest

from tests.codec.canal.support import encoder, row, table_of
from tisink.codec.canal.rows import RowRenderer
from tisink.codec.errors import CodecError
from tisink.model.table import TableInfo

TABLE = table_of(
    [
        ("id", {"mysqlType": "int", "length": 11}),
        ("name", {"mysqlType": "varchar", "length": 10, "charset": "utf8mb4"}),
        ("b", {"mysqlType": "binary", "length": 2}),
        ("e", {"mysqlType": "enum", "elements": ["a"], "charset": "utf8mb4"}),
        ("d", {"mysqlType": "decimal", "length": 10, "decimal": 2}),
        ("j", {"mysqlType": "json"}),
    ]
)
GOOD = {"id": 1, "name": "x", "b": "AAE=", "e": "a", "d": "1.50", "j": {"k": [1]}}


@pytest.mark.parametrize(
    ("column", "value", "reason"),
    [
        ("id", "1", "want an integer"),
        ("name", 5, "want a string"),
        ("b", "not base64!", "not standard base64"),
        ("b", "AAEC", "do not fit binary"),
        ("e", "z", "not a member"),
        ("e", ["a"], "want a string"),
        ("d", "1,5", "want a decimal"),
    ],
)
@pytest.mark.parametrize("op", ["INSERT", "UPDATE", "DELETE"])
def test_a_bad_value_names_table_and_column(
    column: str, value: object, reason: str, op: str
) -> None:
    bad = {**GOOD, column: value}
    images = {"INSERT": (bad, None), "UPDATE": (bad, GOOD), "DELETE": (None, bad)}[op]
    with pytest.raises(CodecError) as info:
        encoder().encode_rows([row(TABLE, *images)])
    text = str(info.value)
    assert "test.t" in text and f"column {column!r}" in text and reason in text, text


def test_a_missing_column_is_named() -> None:
    image = {k: v for k, v in GOOD.items() if k != "d"}
    with pytest.raises(CodecError, match=r"test\.t.*column 'd': missing from the row image"):
        encoder().encode_rows([row(TABLE, image)])


def test_a_table_without_columns_is_refused() -> None:
    empty = TableInfo("test", "v", 1, 1, ())
    with pytest.raises(CodecError, match=r"table test\.v: no column"):
        RowRenderer(
            empty,
            __import__("datetime").UTC,
            content_compatible=False,
            only_updated=False,
            delete_key_only=False,
        )
