"""Where ticdc (``newarch``, the default) and tiflow (``newarch=false``, ``codec/open/classic.py``)
write different Open Protocol bytes (codec/open/README.md "Classic and new architecture")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.codec.open.support import TS, encoder, events, insert, string_keyed, update, varchar
from tisink.codec.open.columns import GENERATED, HANDLE_KEY, PRIMARY_KEY, column_flags
from tisink.codec.open.protocol import PROTOCOL
from tisink.model import ColumnInfo, DDLEvent, DDLType, IndexInfo, RowChangedEvent, make_table

DATA = Path(__file__).parent / "data"
JAVA = {
    name: (bytes.fromhex(pair["key"]), bytes.fromhex(pair["value"]))
    for name, pair in json.loads((DATA / "java_examples.json").read_text()).items()
}


def _one(newarch: bool, rows: list[RowChangedEvent], **options: object) -> tuple[bytes, bytes]:
    (record,) = encoder(newarch=newarch, **options).encode_rows(rows).records
    ((key, value),) = events(*record)
    return key, value


def test_tiflow_writes_the_recorded_key_stream() -> None:
    """tiflow's Java example recording (``row_1``): the whole key stream byte-equal, ``ptn``
    before ``t`` (``MessageKey``'s struct order)."""
    column = ColumnInfo("col1", "varchar", "utf8mb4", "utf8mb4_bin", 10)
    table = make_table("a", "b", 10, 1, [column])
    rows = [insert(table, {"col1": v}, ts) for ts, v in ((1, "aa"), (2, "bb"), (3, "bb"))]
    partitioned = make_table("a", "c", 5, 1, [column])
    rows.append(RowChangedEvent(0, 4, partitioned, None, {"col1": "cc"}, physical_table_id=6))
    (record,) = encoder(newarch=False).encode_rows(rows).records
    assert record[0] == JAVA["row_1"][0]


def _wide() -> object:
    """Columns not in name order: tiflow's Go map sorts them."""
    cols = [varchar("z", nullable=False), varchar("b"), varchar("m")]
    return make_table("s", "t", 3, 1, cols, [IndexInfo("primary", ("z",), True, True)])


@pytest.mark.parametrize(("newarch", "order"), [(True, ["z", "b", "m"]), (False, ["b", "m", "z"])])
def test_column_order(newarch: bool, order: list[str]) -> None:
    _, value = _one(newarch, [insert(_wide(), {"z": "1", "b": "2", "m": "3"})])
    assert list(json.loads(value)["u"]) == order


@pytest.mark.parametrize(
    ("newarch", "text"),
    [
        (True, '"<a&b>\u2028\\u0008"'.encode()),
        (False, b'"\\u003ca\\u0026b\\u003e\\u2028\\b"'),
    ],
)
def test_string_escapes(newarch: bool, text: bytes) -> None:
    """json-iterator without EscapeHTML (ticdc) against ``encoding/json`` (tiflow, Go 1.25)."""
    _, value = _one(newarch, [insert(string_keyed(), {"a": "k", "b": "<a&b>\u2028\b"})])
    assert b'"b":{"t":15,"f":64,"v":' + text + b"}" in value


@pytest.mark.parametrize(("newarch", "tail"), [(True, b',"p":{}}'), (False, b"}}")])
def test_only_updated_columns_with_nothing_changed(newarch: bool, tail: bytes) -> None:
    """tiflow's ``PreColumns`` map is ``omitempty``: no ``p`` when no column changed."""
    same = {"a": "k", "b": "x"}
    _, value = _one(newarch, [update(string_keyed(), same, same)], only_output_updated_columns=True)
    assert value.endswith(tail)


def _big_row() -> RowChangedEvent:
    cols = [ColumnInfo("id", "int", nullable=False), ColumnInfo("blob", "longblob")]
    table = make_table("big", "rows", 3, 1, cols, [IndexInfo("primary", ("id",), True, True)])
    return insert(table, {"id": 7, "blob": "QUJD" * 400})


@pytest.mark.parametrize(
    ("newarch", "option", "tail"),
    [
        (True, "handle-key-only", b'"t":1,"ohk":true}'),
        (False, "handle-key-only", b'"rid":7,"t":1,"ohk":true}'),
        (
            True,
            "claim-check",
            b'"t":1,"ohk":true,"ohk":false,"ccl":"file:///tmp/cc/fixed-uuid.json"}',
        ),
        (False, "claim-check", b'"rid":7,"t":1,"ccl":"file:///tmp/cc/fixed-uuid.json"}'),
    ],
)
def test_large_message_keys(newarch: bool, option: str, tail: bytes) -> None:
    """tiflow's claim-check key sets ``OnlyHandleKey`` false, which ``omitempty`` leaves out."""
    config = {
        "max_message_bytes": 1000,
        "large_message_handle_option": option,
        "claim_check_storage_uri": "file:///tmp/cc/",
    }
    (record,) = encoder(config, newarch=newarch).encode_rows([_big_row()]).records
    ((key, _),) = events(*record)
    assert key == b'{"ts":%d,"scm":"big","tbl":"rows",' % TS + tail


@pytest.mark.parametrize(
    ("newarch", "key", "value"),
    [
        (
            True,
            b'{"ts":7,"scm":"db","tbl":"","t":2}',
            b'{"q":"CREATE DATABASE db /* <&> */","t":1}',
        ),
        (
            False,
            b'{"ts":7,"scm":"db","t":2}',
            b'{"q":"CREATE DATABASE db /* \\u003c\\u0026\\u003e */","t":1}',
        ),
    ],
)
def test_ddl_key_and_value(newarch: bool, key: bytes, value: bytes) -> None:
    """tiflow's ``MessageKey`` leaves an empty ``tbl`` out; its ``messageDDL`` goes through
    ``encoding/json`` (HTML-safe)."""
    ddl = DDLEvent(7, DDLType.QUERY, "CREATE DATABASE db /* <&> */")
    message = encoder(newarch=newarch).encode_ddl(ddl)
    assert message is not None and message.key is not None
    assert events(message.key, message.value) == [(key, value)]


def test_generated_index_columns_flags() -> None:
    """ticdc's ``initColumnFlags`` skips a generated column in the index walk; tiflow's
    ``initColumnsFlag`` marks it (primary key, handle key)."""
    cols = [
        ColumnInfo("a", "int", nullable=False),
        ColumnInfo("g", "int", nullable=False, generated="stored"),
    ]
    table = make_table("s", "t", 1, 1, cols, [IndexInfo("primary", ("a", "g"), True, True)])
    ticdc, tiflow = column_flags(table), column_flags(table, newarch=False)
    assert not ticdc["g"] & HANDLE_KEY and tiflow["g"] & HANDLE_KEY
    assert tiflow["g"] & (PRIMARY_KEY | GENERATED) == PRIMARY_KEY | GENERATED
    assert ticdc["a"] == tiflow["a"]


def test_newarch_is_a_top_level_option() -> None:
    (option,) = [o for o in PROTOCOL.options if o.key == "newarch"]
    assert option.tables == ((),)


def _int_keyed(kind: str = "bigint", unsigned: bool = False) -> object:
    cols = [ColumnInfo("id", kind, nullable=False, unsigned=unsigned), varchar("v")]
    return make_table("s", "t", 3, 1, cols, [IndexInfo("primary", ("id",), True, True)])


def test_tiflow_rid_of_an_int_primary_key() -> None:
    """tiflow's ``MessageKey.RowID`` is the int handle (``RecordID.IntValue()``): an int
    primary key's value, an int64, left out when 0; each row has its own key."""
    rows = [insert(_int_keyed(), {"id": i, "v": "x"}, TS) for i in (5, 0, 6)]
    (record,) = encoder(newarch=False).encode_rows(rows).records
    keys = [key for key, _ in events(*record)]
    base = b'{"ts":%d,"scm":"s","tbl":"t",' % TS
    assert keys == [base + b'"rid":5,"t":1}', base + b'"t":1}', base + b'"rid":6,"t":1}']
    deleted = RowChangedEvent(0, TS, _int_keyed(), {"id": 7, "v": None}, None)
    assert _one(False, [deleted])[0] == base + b'"rid":7,"t":1}'
    big = insert(_int_keyed(unsigned=True), {"id": 2**64 - 1, "v": "x"})
    assert _one(False, [big])[0] == base + b'"rid":-1,"t":1}'
    assert b"rid" not in _one(True, [rows[0]])[0]
    assert b"rid" not in _one(False, [insert(string_keyed(), {"a": "k", "b": "x"})])[0]
