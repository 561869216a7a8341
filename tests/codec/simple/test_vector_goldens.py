"""VECTOR in the Simple Protocol against TiCDC's own tests (``data/vector.json``, sources in
``data/README.md``): in JSON and in Avro the value is ``VectorFloat32.String()``, a string
(Avro's ``string`` branch), in ``data`` and in ``old``; the text is TiDB's for its own test
vectors."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import fastavro
import pytest

from tisink.codec.simple.avro import AvroMarshaller
from tisink.codec.simple.json_marshaller import JSONMarshaller
from tisink.model import ColumnInfo, IndexInfo, RowChangedEvent, TableInfo, make_table

GOLDEN = json.loads((Path(__file__).parent / "data" / "vector.json").read_text(encoding="utf-8"))
LARGE = GOLDEN["large_event"]


def _table(dims: int) -> TableInfo:
    return make_table(
        "test", "t", 100, 1,
        [ColumnInfo("id", "int", length=11, nullable=False),
         ColumnInfo(LARGE["column"], "vector", length=dims)],
        [IndexInfo("primary", ("id",), unique=True, primary=True)],
    )  # fmt: skip


def _events(value: list[Any], dims: int) -> list[RowChangedEvent]:
    """The insert, update and delete of ``TestEncodeLargeEventsNormal`` (the update and delete
    carry the row as their old image)."""
    table, image = _table(dims), {"id": 1, LARGE["column"]: value}
    return [
        RowChangedEvent(1, 2, table, after=image),
        RowChangedEvent(1, 2, table, before=image, after=image),
        RowChangedEvent(1, 2, table, before=image),
    ]


def _json_images(event: RowChangedEvent) -> list[dict[str, Any]]:
    message = json.loads(JSONMarshaller("UTC").marshal_row(event, 3))
    return [message[k] for k in ("data", "old") if message.get(k) is not None]


@pytest.fixture(scope="module")
def avro_schema(simple_golden: Path) -> Any:
    return fastavro.parse_schema(json.loads((simple_golden.parent / "message.json").read_text()))


def _avro_images(schema: Any, event: RowChangedEvent) -> list[dict[str, Any]]:
    payload = AvroMarshaller("UTC").marshal_row(event, 3)
    message = fastavro.schemaless_reader(io.BytesIO(payload), schema, None)
    dml = message["payload"]
    return [dml[k] for k in ("data", "old") if dml.get(k) is not None]


def test_large_event_vector_in_json() -> None:
    for event in _events(LARGE["value"], LARGE["dimensions"]):
        images = _json_images(event)
        assert images and all(image[LARGE["column"]] == LARGE["text"] for image in images)
        raw = JSONMarshaller("UTC").marshal_row(event, 3)
        assert f'"{LARGE["column"]}":"{LARGE["text"]}"'.encode() in raw


def test_large_event_vector_in_avro(avro_schema: Any) -> None:
    for event in _events(LARGE["value"], LARGE["dimensions"]):
        images = _avro_images(avro_schema, event)
        assert images and all(image[LARGE["column"]] == LARGE["text"] for image in images)


@pytest.mark.parametrize("case", GOLDEN["tidb_text"]["cases"], ids=lambda c: c["text"])
def test_tidb_vector_text(case: dict[str, Any], avro_schema: Any) -> None:
    (insert, *_) = _events(case["value"], 0)
    assert _json_images(insert) == [{"id": "1", LARGE["column"]: case["text"]}]
    assert _avro_images(avro_schema, insert)[0][LARGE["column"]] == case["text"]
