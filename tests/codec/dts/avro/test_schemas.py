"""The shipped ``Record.avsc`` files: Alibaba's is the verbatim public one, Tencent's rebuilt
one has the documented shape (seeds/003, spec/dts-formats.md 3), and both parse with fastavro
and with the Apache ``avro`` package."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import avro.schema
import pytest

from tisink.codec.dts.avro.schemas import schema_bytes

PACKAGE = resources.files("tisink.codec.dts.avro") / "avsc"
VALUE_TYPES = (
    "Integer",
    "Character",
    "Float",
    "Decimal",
    "Timestamp",
    "DateTime",
    "TimestampWithTimeZone",
    "BinaryGeometry",
    "TextGeometry",
    "BinaryObject",
    "TextObject",
    "EmptyObject",
)
DOCUMENTED_FIELDS = [
    "id",
    "version",
    "messageType",
    "fileName",
    "position",
    "safePosition",
    "timestamp",
    "gtid",
    "transactionId",
    "serverId",
    "threadId",
    "sourceType",
    "sourceVersion",
    "schemaName",
    "tableName",
    "objectName",
    "columns",
    "oldColumns",
    "newColumns",
    "sql",
    "executionTime",
    "heartbeatTimestamp",
    "syncedGtid",
    "fakeGtid",
    "pkNames",
    "readerTimestamp",
    "tags",
    "total",
    "index",
]


def _schemas(fmt: str) -> list[dict[str, Any]]:
    return json.loads(schema_bytes(fmt))


def test_alibaba_schema_is_the_verbatim_file(reference_data: Path) -> None:
    verbatim = (reference_data / "formats" / "alibaba-dts" / "Record.avsc").read_bytes()
    assert schema_bytes("alibaba") == verbatim


def test_tencent_schema_has_the_documented_shape() -> None:
    schemas = _schemas("tencent")
    assert len(schemas) == 14
    assert {s["namespace"] for s in schemas} == {"com.tencent.subscribe.avro"}
    assert [s["name"] for s in schemas] == ["Field", *VALUE_TYPES, "Record"]
    field = schemas[0]
    assert [f["name"] for f in field["fields"]] == [
        "name",
        "dataTypeNumber",
        "isKey",
        "originalType",
    ]
    record = schemas[-1]
    assert [f["name"] for f in record["fields"]] == DOCUMENTED_FIELDS
    by_name = {f["name"]: f for f in record["fields"]}
    assert by_name["id"]["type"] == "long" and by_name["version"]["type"] == "int"
    message_type = by_name["messageType"]
    assert message_type["aliases"] == ["operation"]
    assert message_type["type"]["symbols"] == [
        "INSERT",
        "UPDATE",
        "DELETE",
        "DDL",
        "BEGIN",
        "COMMIT",
        "HEARTBEAT",
        "CHECKPOINT",
        "ROLLBACK",
    ]


def test_tencent_value_types_are_shaped_as_alibabas() -> None:
    """Same names, field names and field types, namespace aside (the demo borrows them)."""

    def shapes(fmt: str) -> dict[str, Any]:
        namespace = _schemas(fmt)[-1]["namespace"] + "."
        text = json.dumps([s for s in _schemas(fmt) if s["name"] in VALUE_TYPES])
        found = {s["name"]: s for s in json.loads(text.replace(namespace, ""))}
        for shape in found.values():
            shape.pop("namespace")
            for field in shape.get("fields", ()):
                field.pop("doc", None)
        return found

    assert shapes("tencent") == shapes("alibaba")
    tencent_union = _image_union("tencent")
    alibaba_union = _image_union("alibaba")
    assert [t.rsplit(".", 1)[-1] for t in tencent_union] == [
        t.rsplit(".", 1)[-1] for t in alibaba_union
    ]


def _image_union(fmt: str) -> list[str]:
    record = _schemas(fmt)[-1]
    key = "afterImages" if fmt == "alibaba" else "newColumns"
    [image] = [f for f in record["fields"] if f["name"] == key]
    branches = image["type"]
    assert branches[:2] == ["null", "string"]
    return branches[2]["items"]


@pytest.mark.parametrize("fmt", ["alibaba", "tencent"])
def test_apache_avro_parses_the_file(fmt: str) -> None:
    parsed = avro.schema.parse(schema_bytes(fmt).decode())
    assert isinstance(parsed, avro.schema.UnionSchema)
    assert parsed.schemas[-1].fullname.endswith(".Record")
    assert len(parsed.schemas) == 14


def test_notes_sit_beside_the_tencent_schema() -> None:
    notes = (PACKAGE / "tencent" / "SCHEMA_NOTES.md").read_text(encoding="utf-8")
    record = _schemas("tencent")[-1]
    for field in record["fields"]:
        assert f"`{field['name']}`" in notes, f"no note on {field['name']}"
