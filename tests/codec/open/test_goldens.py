"""Byte goldens from TiCDC's own tests and examples (``data/README.md`` names each source).

tiflow's Java example recordings are from 2021: their keys, DDL and resolved events are what
ticdc still writes and must match byte for byte; their row values predate the ``f`` field (and
use a tinyint holding text, which no feed can), so the decoder reads them instead. The fourth
row key has ``ptn`` before ``t`` (tiflow's struct order); ticdc writes it after ``t``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.codec.open.support import TS, encoder, events, insert, string_keyed, update
from tisink.codec.errors import MessageTooLargeError
from tisink.codec.open.decoder import OpenDecoder
from tisink.codec.open.values import go_quote
from tisink.model import ColumnInfo, DDLEvent, DDLType, RowChangedEvent, make_table

DATA = Path(__file__).parent / "data"
JAVA = {
    name: (bytes.fromhex(pair["key"]), bytes.fromhex(pair["value"]))
    for name, pair in json.loads((DATA / "java_examples.json").read_text()).items()
}


def _table(schema: str, name: str, table_id: int = 10) -> object:
    column = ColumnInfo("col1", "varchar", "utf8mb4", "utf8mb4_bin", 10)
    return make_table(schema, name, table_id, 1, [column])


def test_resolved_event_is_the_recorded_one() -> None:
    message = encoder().encode_checkpoint(1)
    assert (message.key, message.value) == JAVA["rts_0"]


def test_ddl_event_is_the_recorded_one() -> None:
    """rts/ddl ``_1`` batch three events; the third, framed alone, is ``create table c`` at
    ts 3, whose action (CreateTable, 3) is what the recording carries."""
    table = _table("a", "b")
    message = encoder().encode_ddl(DDLEvent(3, DDLType.CREATE, "create table c", table))
    assert message is not None
    recorded = events(*JAVA["ddl_1"])[2]
    assert events(message.key, message.value) == [recorded]
    assert JAVA["ddl_0"][0] == encoder().encode_ddl(DDLEvent(1, DDLType.CREATE, "", table)).key


def test_row_keys_are_the_recorded_ones() -> None:
    table = _table("a", "b")
    rows = [insert(table, {"col1": v}, ts) for ts, v in ((1, "aa"), (2, "bb"), (3, "bb"))]
    partitioned = _table("a", "c", table_id=5)
    rows.append(RowChangedEvent(0, 4, partitioned, None, {"col1": "cc"}, physical_table_id=6))
    (record,) = encoder().encode_rows(rows).records
    keys = [key for key, _ in events(*record)]
    recorded = [key for key, _ in events(*JAVA["row_1"])]
    assert keys[:3] == recorded[:3]
    assert record[0][: 8 + 8 + len(recorded[0])] == JAVA["row_0"][0]
    assert recorded[3] == b'{"ts":4,"scm":"a","tbl":"c","ptn":6,"t":1}'  # tiflow
    assert keys[3] == b'{"ts":4,"scm":"a","tbl":"c","t":1,"ptn":6}'  # ticdc


@pytest.mark.parametrize("name", ["row_1", "ddl_1", "rts_1"])
def test_the_decoder_reads_the_recordings(name: str) -> None:
    decoded = OpenDecoder().decode(*JAVA[name])
    assert [m.commit_ts for m in decoded] == [1, 2, 3, 4][: len(decoded)]
    kinds = {"row_1": "DML", "ddl_1": "DDL", "rts_1": "WATERMARK"}
    assert {m.kind for m in decoded} == {kinds[name]}
    if name == "row_1":
        assert [m.data for m in decoded] == [{"col1": v} for v in ("aa", "bb", "bb", "cc")]


@pytest.mark.parametrize("name", ["row_2", "ddl_2", "rts_2"])
def test_an_empty_recorded_batch_holds_no_event(name: str) -> None:
    assert OpenDecoder().decode(*JAVA[name]) == []


def test_max_message_bytes_188_just_holds_the_row_and_187_does_not() -> None:
    """tiflow ``TestMaxMessageBytes``: ``insert into test.t values ("aa", "bb")`` fits 188."""
    row = insert(string_keyed(), {"a": "aa", "b": "bb"})
    (record,) = encoder({"max_message_bytes": 188}).encode_rows([row]).records
    assert events(*record) == [
        (
            b'{"ts":%d,"scm":"test","tbl":"t","t":1}' % TS,
            b'{"u":{"a":{"t":15,"h":true,"f":10,"v":"aa"},"b":{"t":15,"f":64,"v":"bb"}}}',
        )
    ]
    with pytest.raises(MessageTooLargeError, match=r"test\.t"):
        encoder({"max_message_bytes": 187}).encode_rows([row])


def test_max_message_bytes_256_bounds_every_batch() -> None:
    """tiflow ``TestMaxMessageBytes``: 10000 rows, every message's Length() <= 256."""
    row = insert(string_keyed(), {"a": "aa", "b": "bb"})
    encoded = encoder({"max_message_bytes": 256}).encode_rows([row] * 10000)
    assert all(len(k or b"") + len(v) + 36 <= 256 for k, v in encoded.records)
    assert sum(len(events(*r)) for r in encoded.records) == 10000


def test_max_batch_size_64_bounds_every_batch() -> None:
    """tiflow ``TestMaxBatchSize``: 10000 rows, at most 64 per message, none lost."""
    row = insert(string_keyed(), {"a": "aa", "b": "bb"})
    encoded = encoder({"max_message_bytes": 1048576}, max_batch_size=64).encode_rows([row] * 10000)
    counts = [len(events(*r)) for r in encoded.records]
    assert max(counts) == 64 and sum(counts) == 10000


def test_max_batch_size_2_gives_three_messages_of_five_rows() -> None:
    """tiflow ``TestOpenProtocolAppendRowChangedEventWithCallback``: 2 + 2 + 1."""
    row = insert(string_keyed(), {"a": "aa", "b": "bb"})
    encoded = encoder(max_batch_size=2).encode_rows([row] * 5)
    assert [len(events(*r)) for r in encoded.records] == [2, 2, 1]


def test_varbinary_is_quoted_as_go_does() -> None:
    """ticdc ``message_test.go`` ``TestVarBinaryCol``: strconv.Quote of a PNG header."""
    raw = bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    assert go_quote(raw) == "\\x89PNG\\r\\n\\x1a\\n"
    table = make_table("s", "t", 1, 1, [ColumnInfo("b", "varbinary", length=10)])
    (record,) = encoder().encode_rows([insert(table, {"b": "iVBORw0KGgo="})]).records
    expected = rb'{"u":{"b":{"t":15,"f":65,"v":"\\x89PNG\\r\\n\\x1a\\n"}}}'
    assert events(*record)[0][1] == expected


def test_blob_and_text_are_base64_and_char_is_text() -> None:
    """ticdc ``message_test.go`` ``TestFormatCol``: "测" in a string column, and in a blob."""
    columns = [
        ColumnInfo("s", "char", "utf8mb4", "utf8mb4_bin", 4),
        ColumnInfo("b", "blob"),
        ColumnInfo("x", "text", "utf8mb4", "utf8mb4_bin"),
    ]
    table = make_table("s", "t", 1, 1, columns)
    row = insert(table, {"s": "测", "b": "5rWL", "x": "测"})
    (record,) = encoder().encode_rows([row]).records
    assert (
        events(*record)[0][1]
        == (
            '{"u":{"s":{"t":254,"f":64,"v":"测"},"b":{"t":252,"f":65,"v":"5rWL"},'
            '"x":{"t":252,"f":64,"v":"5rWL"}}}'
        ).encode()
    )


def test_update_carries_u_then_p() -> None:
    row = update(string_keyed(), {"a": "aa", "b": "bb"}, {"a": "aa", "b": "cc"})
    (record,) = encoder().encode_rows([row]).records
    assert events(*record)[0][1] == (
        b'{"u":{"a":{"t":15,"h":true,"f":10,"v":"aa"},"b":{"t":15,"f":64,"v":"cc"}},'
        b'"p":{"a":{"t":15,"h":true,"f":10,"v":"aa"},"b":{"t":15,"f":64,"v":"bb"}}}'
    )
