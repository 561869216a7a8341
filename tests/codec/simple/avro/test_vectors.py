"""Value branches against the unit-test-derived vectors and the large-event expectations.

The bytes are read back with the independent ``tagged`` reader, so each column's union branch is
checked by name, not only its decoded value.
"""

from __future__ import annotations

import base64
import json
import struct
from pathlib import Path
from typing import Any

import pytest

from tisink.codec.simple.avro import AvroMarshaller
from tisink.model.events import RowChangedEvent
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table

UNSIGNED_BIGINT = "com.pingcap.simple.avro.UnsignedBigint"


def _float32(v: float) -> float:
    return struct.unpack("<f", struct.pack("<f", v))[0]


def _expected(branch: dict[str, Any], ticdc_key: str = "value") -> tuple[str, Any]:
    """A golden ``{"branch": ..., "value": ...}`` in the tagged reader's (name, value) form."""
    name = branch["branch"]
    if name == "null":
        return ("null", None)
    if name == "bytes":
        return ("bytes", base64.b64decode(branch["value_base64"]))
    if name == "float":
        return ("float", _float32(branch["value"]))
    if name.startswith("string (ticdc)"):
        return ("string", branch[ticdc_key])
    return (name, branch["value"])


def _data_map(tagged: Any, payload: bytes) -> dict[str, Any]:
    name, message = tagged.read(payload)
    assert name == "com.pingcap.simple.avro.Message"
    assert message["type"] == "DML"
    dml_name, dml = message["payload"]
    assert dml_name == "com.pingcap.simple.avro.DML"
    assert dml["old"] == ("null", None)
    branch, data = dml["data"]
    assert branch == "map"
    return data


def _insert(table: TableInfo, image: dict[str, Any]) -> RowChangedEvent:
    return RowChangedEvent(1, 2, table, after=image)


def _integer_table() -> TableInfo:
    columns = [ColumnInfo("id", "int", length=11, nullable=False)]
    for name, mysql_type, unsigned in [
        ("a", "tinyint", False),
        ("b", "tinyint", True),
        ("c", "smallint", False),
        ("d", "smallint", True),
        ("e", "mediumint", False),
        ("f", "mediumint", True),
        ("g", "int", False),
        ("h", "int", True),
        ("i", "bigint", False),
        ("j", "bigint", True),
    ]:
        columns.append(ColumnInfo(name, mysql_type, unsigned=unsigned))
    return make_table("test", "t", 1, 1, columns, [IndexInfo("PRIMARY", ("id",), True, True)])


@pytest.mark.parametrize("which", ["min", "max"])
def test_integer_types(simple_golden: Path, tagged: Any, which: str) -> None:
    vectors = json.loads(
        (simple_golden / "unit-test-derived" / "TestEncodeIntegerTypes.vectors.json").read_text()
    )
    (case,) = [r for r in vectors["rows"] if r["row"] == which]
    payload = AvroMarshaller("UTC").marshal_row(_insert(_integer_table(), case["input"]), 3)
    data = _data_map(tagged, payload)
    assert list(data) == list(case["input"])
    assert data == {name: _expected(b) for name, b in case["avro_data"].items()}


@pytest.mark.parametrize(("newarch", "origin"), [(True, "ticdc"), (False, "tiflow")])
def test_other_types(simple_golden: Path, tagged: Any, newarch: bool, origin: str) -> None:
    """ticdc writes BIT as its decimal text, tiflow as a long (``avro_data_<origin>``)."""
    vectors = json.loads(
        (simple_golden / "unit-test-derived" / "TestEncoderOtherTypes.vectors.json").read_text()
    )
    table = make_table(
        "test",
        "t",
        1,
        1,
        [
            ColumnInfo("a", "int", length=11, nullable=False),
            ColumnInfo("b", "enum", "utf8mb4", "utf8mb4_bin", 1, elements=("a", "b", "c")),
            ColumnInfo("c", "set", "utf8mb4", "utf8mb4_bin", 5, elements=("a", "b", "c")),
            ColumnInfo("d", "bit", length=64, unsigned=True),
            ColumnInfo("e", "json", length=4294967295),
        ],
        [IndexInfo("PRIMARY", ("a",), True, True)],
    )
    image = {
        "a": 1,
        "b": "a",
        "c": ["a", "b"],
        "d": 0b1000001,
        "e": {"key1": "value1", "key2": "value2"},
    }
    marshaller = AvroMarshaller("UTC", newarch=newarch)
    data = _data_map(tagged, marshaller.marshal_row(_insert(table, image), 3))
    assert data == {name: _expected(b) for name, b in vectors[f"avro_data_{origin}"].items()}


def test_large_event_insert(
    simple_golden: Path, tagged: Any, large_table: TableInfo, large_row_image: dict[str, Any]
) -> None:
    table, image = large_table, large_row_image
    expected = json.loads(
        (simple_golden / "large-event" / "expected_insert_avro_branches.json").read_text("utf-8")
    )
    assert len(table.columns) == 55
    payload = AvroMarshaller("UTC").marshal_row(_insert(table, image), 3)
    data = _data_map(tagged, payload)
    assert list(data) == [c.name for c in table.columns]
    assert data == {name: _expected(b, "value_ticdc") for name, b in expected.items()}
