"""VECTOR in the Open Protocol against TiCDC's own tests (``data/vector.json``, sources in
``data/README.md``): type code 225 and the value ``VectorFloat32.String()`` as a JSON string,
in the new and the old image; the text is TiDB's for its own test vectors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.codec.open.support import encoder, events, insert, update
from tisink.model import ColumnInfo, IndexInfo, TableInfo, make_table

GOLDEN = json.loads((Path(__file__).parent / "data" / "vector.json").read_text(encoding="utf-8"))


def _table(dims: int = 5) -> TableInfo:
    """ticdc ``TestVectorType``'s ``test.t(id int primary key, data VECTOR(5))``."""
    return make_table(
        "test", "t", 100, 1,
        [ColumnInfo("id", "int", nullable=False), ColumnInfo("data", "vector", length=dims)],
        [IndexInfo("primary", ("id",), unique=True, primary=True)],
    )  # fmt: skip


def _value(event) -> bytes:
    (record,) = encoder().encode_rows([event]).records
    ((_, value),) = events(*record)
    return value


def test_vector_type_row() -> None:
    case = GOLDEN["row"]
    value = _value(insert(_table(), case["insert"]))
    column = json.loads(value)["u"]["data"]
    assert (column["t"], column["v"]) == (case["type_code"], case["value"])
    assert f'"v":"{case["value"]}"'.encode() in value


def test_vector_in_the_old_image() -> None:
    """tiflow's claim-check test reads the old value back as the same text."""
    case = GOLDEN["row"]
    after = {**case["insert"], "data": [5, 4, 3, 2, 1]}
    message = json.loads(_value(update(_table(), case["insert"], after)))
    assert message["u"]["data"]["v"] == "[5,4,3,2,1]"
    assert message["p"]["data"]["v"] == case["value"]
    assert message["p"]["data"]["t"] == case["type_code"]


@pytest.mark.parametrize("case", GOLDEN["tidb_text"]["cases"], ids=lambda c: c["text"])
def test_tidb_vector_text(case: dict[str, Any]) -> None:
    message = json.loads(_value(insert(_table(0), {"id": 1, "data": case["value"]})))
    assert message["u"]["data"]["v"] == case["text"]
