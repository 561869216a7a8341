"""VECTOR in canal-json against TiCDC's own tests (``data/vector.json``, sources in
``data/README.md``): the value is ``VectorFloat32.String()`` as a JSON string, ``sqlType`` 12
(VARCHAR), ``mysqlType`` ``vector``; the same text in ``data`` and ``old``, with and without
the TiDB extension; and the text is TiDB's for its own test vectors."""

from __future__ import annotations

from typing import Any

import pytest

from tests.codec.canal.support import encoder, message, row, table_of, vectors, with_id

GOLDEN = vectors("vector.json")


def test_insert_of_ticdc_canal_entry_test() -> None:
    """tiflow ``TestInsert``: ``vec vector(5)`` holding ``[1,2,3,4,5]``."""
    case = GOLDEN["insert"]
    table = table_of([(c["name"], c["column"]) for c in case["columns"]])
    body = message(encoder(), row(table, {c["name"]: c["value"] for c in case["columns"]}))
    want = case["vec"]
    assert body["data"][0]["vec"] == want["value"]
    assert body["sqlType"]["vec"] == want["sqlType"]
    assert body["mysqlType"]["vec"] == want["mysqlType"]
    assert body["old"] is None
    (record,) = encoder().encode_rows([row(table, {"id": 1, "vec": [1, 2, 3, 4, 5]})]).records
    raw = record[1]
    for fragment in ('"vec":"[1,2,3,4,5]"', '"vec":12', '"vec":"vector"'):
        assert fragment.encode() in raw, raw


@pytest.mark.parametrize("extension", [False, True])
def test_large_event_vector_in_every_image(extension: bool) -> None:
    """tiflow ``TestDMLE2E``: the decoded value of ``vectorT`` is ``v.String()`` for the
    insert, update and delete, with ``enable-tidb-extension`` off and on."""
    case = GOLDEN["large_event"]
    table = with_id("vectorT", case["column"])
    image = {"id": 1, "vectorT": case["value"]}
    options = {"enable-tidb-extension": extension}
    insert = message(encoder(options), row(table, image))
    assert insert["data"] == [{"id": "1", "vectorT": case["text"]}]
    update = message(encoder(options), row(table, {**image, "id": 2}, image))
    assert update["data"][0]["vectorT"] == case["text"]
    delete = message(encoder(options), row(table, None, image))
    assert delete["data"][0]["vectorT"] == case["text"]


@pytest.mark.parametrize("case", GOLDEN["tidb_text"]["cases"], ids=lambda c: c["text"])
def test_tidb_vector_text(case: dict[str, Any]) -> None:
    table = with_id("v", {"mysqlType": "vector"})
    body = message(encoder(), row(table, {"id": 1, "v": case["value"]}))
    assert body["data"][0]["v"] == case["text"]
