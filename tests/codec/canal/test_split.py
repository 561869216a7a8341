"""A key-changing UPDATE reaches the encoder split by the table sink (TiCDC's
``trySplitAndSortUpdateEvent``): canal-json then writes a DELETE of the old row and an INSERT of
the new one, both at the UPDATE's commitTs, as TiCDC's canal-json output of such an UPDATE."""

from __future__ import annotations

import orjson

from tests.codec.canal.support import COMMIT_TS, encoder, row, table_of
from tisink.tablesink.split import changes_unique_key, split_update

TABLE = table_of(
    [
        ("id", {"mysqlType": "int", "length": 11}),
        ("v", {"mysqlType": "varchar", "length": 10, "charset": "utf8mb4"}),
    ]
)


def test_split_update_is_a_delete_then_an_insert() -> None:
    update = row(TABLE, {"id": 2, "v": "b"}, {"id": 1, "v": "a"})
    assert changes_unique_key(update)
    halves = split_update(update)
    codec = encoder({"enable-tidb-extension": True})
    first, second = (orjson.loads(v) for _, v in codec.encode_rows(list(halves)).records)
    assert (first["type"], first["old"], first["data"]) == ("DELETE", None, [{"id": "1", "v": "a"}])
    assert (second["type"], second["old"], second["data"]) == (
        "INSERT",
        None,
        [{"id": "2", "v": "b"}],
    )
    for body in (first, second):
        assert body["_tidb"] == {"commitTs": COMMIT_TS} and body["es"] == COMMIT_TS >> 18


def test_an_update_keeping_its_key_stays_one_message() -> None:
    update = row(TABLE, {"id": 1, "v": "b"}, {"id": 1, "v": "a"})
    assert not changes_unique_key(update)
    ((_, value),) = encoder().encode_rows([update]).records
    assert orjson.loads(value)["type"] == "UPDATE"
