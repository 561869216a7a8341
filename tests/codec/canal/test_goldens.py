"""Our output against the vectors written from TiCDC's own tests (data/README.md). The tiflow
vectors (types, values, canal entry) hold under both architectures (``newarch``): the two write
these the same (codec/canal/README.md)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.codec.canal.support import COMMIT_TS, encoder, message, row, table_of, vectors, with_id
from tisink.codec.canal.decoder import CanalJSONDecoder
from tisink.model.events import DDLEvent, DDLType
from tisink.model.table import TableInfo

TYPES = vectors("types.json")["cases"]
VALUES = vectors("values.json")
MESSAGES = vectors("messages.json")


def _id(case: dict[str, Any]) -> str:
    return case.get("ddl") or case["name"]


@pytest.mark.parametrize("case", TYPES, ids=_id)
@pytest.mark.parametrize("content_compatible", [False, True])
@pytest.mark.parametrize("newarch", [False, True])
def test_mysql_type_and_sql_type(
    case: dict[str, Any], content_compatible: bool, newarch: bool
) -> None:
    table = with_id("c", case["column"])
    codec = encoder({"content-compatible": content_compatible, "newarch": newarch})
    expected_type = case["contentCompatible" if content_compatible else "mysqlType"]
    for value, sql_type in case["sqlType"] or [[None, None]]:
        body = message(codec, row(table, {"id": 1, "c": value}))
        assert body["mysqlType"]["c"] == expected_type
        if sql_type is not None:
            assert body["sqlType"]["c"] == sql_type, value


@pytest.mark.parametrize("case", VALUES["columns"], ids=_id)
@pytest.mark.parametrize("newarch", [False, True])
def test_value_text(case: dict[str, Any], newarch: bool) -> None:
    table = with_id("c", case["column"])
    for image in ({"id": 1, "c": case["value"]},):
        for event in (row(table, image), row(table, None, image), row(table, image, image)):
            body = message(encoder({"newarch": newarch}), event)
            assert body["data"][0]["c"] == case["expected"]


@pytest.mark.parametrize("newarch", [False, True])
def test_canal_entry_insert(newarch: bool) -> None:
    entry = VALUES["entry"]
    table = table_of([(c["name"], c["column"]) for c in entry])
    body = message(
        encoder({"newarch": newarch}), row(table, {c["name"]: c["value"] for c in entry})
    )
    assert body["data"] == [{c["name"]: c["expected"] for c in entry}]
    assert body["sqlType"] == {c["name"]: c["sqlType"] for c in entry}
    assert body["mysqlType"] == {c["name"]: c["mysqlType"] for c in entry}
    assert body["pkNames"] == ["id"]


def _ddl(event: dict[str, Any]) -> DDLEvent:
    table = None
    if event["schema"]:
        table = TableInfo(event["schema"], event["table"], 1, 1, ())
    return DDLEvent(event["commitTs"], DDLType(event["ddlType"]), event["query"], table)


@pytest.mark.parametrize("case", MESSAGES["messages"], ids=lambda c: c["name"])
def test_message_bytes(case: dict[str, Any]) -> None:
    codec = encoder(case["options"], now_ms=case["clock"])
    event = case["event"]
    if event["kind"] == "checkpoint":
        built = codec.encode_checkpoint(event["ts"])
        assert built is not None
        value = built.value
    elif event["kind"] == "ddl":
        built = codec.encode_ddl(_ddl(event))
        assert built is not None
        value = built.value
    else:
        table = TableInfo.from_dict(event["table"])
        (record,) = codec.encode_rows([row(table, event["after"], None, event["commitTs"])]).records
        assert record[0] is None
        value = record[1]
    assert value.decode() == case["expected"]


def test_max_message_bytes_of_the_insert_aa_vector() -> None:
    from tisink.codec.errors import MessageTooLargeError

    case = next(c for c in MESSAGES["messages"] if c["name"] == "insert-aa")
    table = TableInfo.from_dict(case["event"]["table"])
    event = row(table, {"a": "aa"}, None, COMMIT_TS)
    assert encoder(max_message_bytes=300).encode_rows([event]).size < 300
    with pytest.raises(MessageTooLargeError, match=r"test\.t"):
        encoder(max_message_bytes=100).encode_rows([event])


def test_decoder_reads_ticdc_messages() -> None:
    inputs = MESSAGES["decoder_inputs"]
    decoder = CanalJSONDecoder()
    decoded = [decoder.decode(None, m.encode())[0] for m in inputs["messages"]]
    assert [d.type for d in decoded] == inputs["types"]
    assert {d.table_name for d in decoded} == {"test.employee"}
    assert decoded[0].data and decoded[0].data["OfficeLocation"] == "New York"
    assert decoded[1].old and decoded[1].old["HireDate"] == "2014-06-04"
    assert decoded[2].data is None and decoded[2].old and decoded[2].old["id"] == "101"
    assert decoded[0].commit_ts == 1668067205238 << 18
    assert decoded[0].table_schema and decoded[0].table_schema.handle_key == ("id",)
