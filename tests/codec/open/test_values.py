"""Column type codes, flag bits and values as ticdc's Open Protocol writes them, DDL actions,
and errors that name the table and the column."""

from __future__ import annotations

import json

import pytest

from tests.codec.open.support import encoder, events, insert
from tisink.codec.errors import CodecError
from tisink.codec.open.columns import column_flags
from tisink.codec.open.ddl import action_type, ddl_names
from tisink.codec.open.values import go_quote
from tisink.model import ColumnInfo, DDLEvent, DDLType, IndexInfo, make_table

ALL_TYPES = [
    ColumnInfo("id", "bigint", nullable=False),
    ColumnInfo("ti", "tinyint"),
    ColumnInfo("ubi", "bigint", unsigned=True),
    ColumnInfo("yr", "year", unsigned=True),
    ColumnInfo("f", "float"),
    ColumnInfo("d", "double"),
    ColumnInfo("dec", "decimal", length=10, decimal=2),
    ColumnInfo("c", "char", "utf8mb4", "utf8mb4_bin", 10),
    ColumnInfo("vb", "varbinary", length=10),
    ColumnInfo("bn", "binary", length=3),
    ColumnInfo("tx", "mediumtext", "utf8mb4", "utf8mb4_bin"),
    ColumnInfo("bl", "tinyblob"),
    ColumnInfo("dt", "date"),
    ColumnInfo("dtm", "datetime", decimal=3),
    ColumnInfo("ts", "timestamp"),
    ColumnInfo("tm", "time"),
    ColumnInfo("e", "enum", "utf8mb4", "utf8mb4_bin", elements=("x", "y", "z")),
    ColumnInfo("s", "set", "utf8mb4", "utf8mb4_bin", elements=("p", "q", "r")),
    ColumnInfo("bt", "bit", length=8, unsigned=True),
    ColumnInfo("j", "json"),
    ColumnInfo("vec", "vector"),
]
TABLE = make_table("types", "all", 1, 1, ALL_TYPES, [IndexInfo("primary", ("id",), True, True)])
ROW = {
    "id": -(1 << 63),
    "ti": 127,
    "ubi": (1 << 64) - 1,
    "yr": 2024,
    "f": 1.1,
    "d": 1e-7,
    "dec": "-12.50",
    "c": "a<b>&\b\f\u2028",
    "vb": "AP9h",
    "bn": "YQ==",
    "tx": "héllo",
    "bl": "AAE=",
    "dt": "2024-02-29",
    "dtm": "2024-02-29 12:34:56.789",
    "ts": "2024-01-01 00:00:00",
    "tm": "-838:59:59",
    "e": "y",
    "s": ["p", "r"],
    "bt": 255,
    "j": {"k": [1, "v"]},
    "vec": [1.5, 2.0],
}


def _value(table, row, **config) -> bytes:
    (record,) = encoder(config).encode_rows([insert(table, row)]).records
    ((_, value),) = events(*record)
    return value


def test_every_type_code_flag_and_value() -> None:
    value = _value(TABLE, ROW, time_zone="Asia/Shanghai")
    columns = json.loads(value)["u"]
    assert {n: (c["t"], c["f"], c["v"]) for n, c in columns.items()} == {
        "id": (8, 11, -(1 << 63)),
        "ti": (1, 65, 127),
        "ubi": (8, 193, (1 << 64) - 1),
        "yr": (13, 193, 2024),
        "f": (4, 65, 1.1),
        "d": (5, 65, 1e-7),
        "dec": (246, 65, "-12.50"),
        "c": (254, 64, "a<b>&\b\f\u2028"),
        "vb": (15, 65, "\\x00\\xffa"),
        "bn": (254, 65, "a\\x00\\x00"),
        "tx": (250, 64, "aMOpbGxv"),
        "bl": (249, 65, "AAE="),
        "dt": (10, 65, "2024-02-29"),
        "dtm": (12, 65, "2024-02-29 12:34:56.789"),
        "ts": (7, 65, "2024-01-01 08:00:00"),
        "tm": (11, 65, "-838:59:59"),
        "e": (247, 64, 2),
        "s": (248, 64, 5),
        "bt": (16, 193, 255),
        "j": (245, 65, '{"k": [1, "v"]}'),
        "vec": (225, 65, "[1.5,2]"),
    }
    assert list(columns) == [c.name for c in ALL_TYPES]  # table order, as ticdc
    assert columns["id"]["h"] is True and "h" not in columns["ti"]


def test_json_iterator_text() -> None:
    """No HTML escaping, U+2028 raw, ``\\b``/``\\f`` long, floats in Go's 'e' form below
    1e-6 without the exponent's leading zero, float32 digits for FLOAT."""
    value = _value(TABLE, ROW)
    assert b'"v":"a<b>&\\u0008\\u000c\xe2\x80\xa8"' in value
    assert b'"d":{"t":5,"f":65,"v":1e-7}' in value
    assert b'"f":{"t":4,"f":65,"v":1.1}' in value
    big = _value(TABLE, {**ROW, "d": 1e21, "f": 3.0})
    assert b'"v":1e+21' in big and b'"f":{"t":4,"f":65,"v":3}' in big


def test_nulls_are_null() -> None:
    row = {name: None for name in ROW} | {"id": 1}
    columns = json.loads(_value(TABLE, row))["u"]
    assert all(c["v"] is None for n, c in columns.items() if n != "id")


def test_flags_follow_ticdc_init_column_flags() -> None:
    """ticdc ``TestEncodeFlag``'s table: ``a int primary key, b int not null, c int,
    d int unsigned, e blob, unique key idx(b, c), key idx2(c, d)``."""
    columns = [
        ColumnInfo("a", "int", nullable=False),
        ColumnInfo("b", "int", nullable=False),
        ColumnInfo("c", "int"),
        ColumnInfo("d", "int", unsigned=True),
        ColumnInfo("e", "blob"),
    ]
    indexes = [
        IndexInfo("primary", ("a",), True, True),
        IndexInfo("idx", ("b", "c"), True),
        IndexInfo("idx2", ("c", "d")),
    ]
    flags = column_flags(make_table("test", "t", 1, 1, columns, indexes))
    assert flags == {"a": 11, "b": 49, "c": 113, "d": 225, "e": 65}


def test_a_not_null_unique_key_is_the_handle_without_a_primary_key() -> None:
    columns = [ColumnInfo("u", "varchar", "utf8mb4", "utf8mb4_bin", 5, nullable=False)]
    table = make_table("s", "t", 1, 1, columns, [IndexInfo("uk", ("u",), True)])
    assert column_flags(table) == {"u": 2 | 16}
    assert json.loads(_value(table, {"u": "k"}))["u"]["u"]["h"] is True


def test_virtual_columns_are_not_written_and_generated_ones_are_flagged() -> None:
    columns = [
        ColumnInfo("a", "int", nullable=False),
        ColumnInfo("v", "int", generated="virtual"),
        ColumnInfo("g", "int", generated="stored"),
    ]
    table = make_table("s", "t", 1, 1, columns, [IndexInfo("g_idx", ("g",))])
    columns_out = json.loads(_value(table, {"a": 1, "g": 2}))["u"]
    assert list(columns_out) == ["a", "g"]
    assert columns_out["g"]["f"] == 1 | 4 | 32 | 64


@pytest.mark.parametrize(
    ("raw", "quoted"),
    [
        (b"plain", "plain"),
        (b'q"b\\', 'q\\"b\\\\'),
        (b"\x07\x08\x0b\x7f", "\\a\\b\\v\\x7f"),
        ("é中😀".encode(), "é中😀"),
        (b"\xed\xa0\x80", "\\xed\\xa0\\x80"),  # a UTF-8 surrogate is not UTF-8 for Go either
        ("\u00a0\u200b".encode(), "\\u00a0\\u200b"),
        ("\U000e0001".encode(), "\\U000e0001"),
    ],
)
def test_go_quote(raw: bytes, quoted: str) -> None:
    assert go_quote(raw) == quoted


@pytest.mark.parametrize(
    ("column", "value", "why"),
    [
        ("ti", 128, "out of range"),
        ("ti", "1", "integer"),
        ("dec", "1e5", "decimal"),
        ("e", "nope", "not a member"),
        ("vb", "%%%", "base64"),
        ("f", float("nan"), "finite"),
        ("ts", "yesterday", "timestamp"),
    ],
)
def test_a_bad_value_names_the_table_and_column(column: str, value: object, why: str) -> None:
    with pytest.raises(CodecError, match=rf"types\.all.*column '{column}'.*{why}"):
        _value(TABLE, {**ROW, column: value}, time_zone="Asia/Shanghai")


def test_a_missing_column_names_it() -> None:
    row = dict(ROW)
    del row["dtm"]
    with pytest.raises(CodecError, match=r"types\.all.*column 'dtm'.*missing"):
        _value(TABLE, row)


def test_a_lone_surrogate_becomes_the_replacement_character() -> None:
    value = _value(TABLE, {**ROW, "c": "x\ud800y"})
    assert json.loads(value)["u"]["c"]["v"] == "x\ufffdy"


_T = make_table("db", "tb", 1, 1, [ColumnInfo("a", "int")])


@pytest.mark.parametrize(
    ("kind", "query", "action"),
    [
        (DDLType.CREATE, "CREATE TABLE tb (a int)", 3),
        (DDLType.ERASE, "DROP TABLE tb", 4),
        (DDLType.TRUNCATE, "TRUNCATE TABLE tb", 11),
        (DDLType.RENAME, "RENAME TABLE a TO tb", 14),
        (DDLType.CINDEX, "CREATE INDEX i ON tb(a)", 7),
        (DDLType.CINDEX, "ALTER TABLE tb ADD PRIMARY KEY (a)", 32),
        (DDLType.DINDEX, "DROP INDEX i ON tb", 8),
        (DDLType.DINDEX, "ALTER TABLE tb DROP PRIMARY KEY", 33),
        (DDLType.ALTER, "ALTER TABLE tb ADD COLUMN b int", 5),
        (DDLType.ALTER, "ALTER TABLE tb DROP COLUMN b", 6),
        (DDLType.ALTER, "ALTER TABLE tb MODIFY COLUMN a bigint", 12),
        (DDLType.ALTER, "ALTER TABLE tb ALTER COLUMN a SET DEFAULT 1", 15),
        (DDLType.ALTER, "ALTER TABLE tb COMMENT = 'x'", 17),
        (DDLType.ALTER, "ALTER TABLE tb RENAME INDEX i TO j", 18),
        (DDLType.ALTER, "ALTER TABLE tb ADD PARTITION (PARTITION p1 VALUES LESS THAN (9))", 19),
        (DDLType.QUERY, "CREATE DATABASE db", 1),
        (DDLType.QUERY, "DROP DATABASE `db`", 2),
        (DDLType.QUERY, "CREATE VIEW v AS SELECT 1", 21),
    ],
)
def test_ddl_action_types(kind: DDLType, query: str, action: int) -> None:
    table = None if kind is DDLType.QUERY else _T
    ddl = DDLEvent(9, kind, query, table)
    assert action_type(ddl) == action
    message = encoder().encode_ddl(ddl)
    assert message is not None
    ((key, value),) = events(message.key, message.value)
    assert json.loads(value) == {"q": query, "t": action}
    schema, name = ddl_names(ddl)
    assert key == b'{"ts":9,"scm":"%s","tbl":"%s","t":2}' % (schema.encode(), name.encode())
    if kind is DDLType.QUERY and "DATABASE" in query:
        assert schema == "db" and name == ""


def test_no_bootstrap() -> None:
    enc = encoder()
    assert enc.encode_bootstrap(_T) is None
    assert enc.encode_ddl(DDLEvent.bootstrap(_T)) is None


@pytest.mark.parametrize("only_updated", [False, True])
def test_backspace_and_form_feed_are_long_in_every_map(only_updated: bool) -> None:
    """The scan for orjson's short ``\\b`` / ``\\f`` runs for whichever image holds them, and
    a Go-quoted ``\\b`` (a 0x08 byte of a VARBINARY) stays as Go wrote it."""
    from tests.codec.open.support import delete, update

    columns = [
        ColumnInfo("id", "int", nullable=False),
        ColumnInfo("c", "varchar", "utf8mb4", "utf8mb4_bin", 10),
        ColumnInfo("vb", "varbinary", length=4),
    ]
    table = make_table("s", "t", 1, 1, columns, [IndexInfo("primary", ("id",), True, True)])
    enc = encoder(only_output_updated_columns=only_updated)
    rows = [
        update(table, {"id": 1, "c": "a\bb", "vb": "CA=="}, {"id": 1, "c": "plain", "vb": "CA=="}),
        update(table, {"id": 1, "c": "plain", "vb": "CA=="}, {"id": 1, "c": "x\fy", "vb": "DA=="}),
        delete(table, {"id": 1, "c": "\b", "vb": None}),
        insert(table, {"id": 2, "c": "ok", "vb": "CAw="}),
    ]
    values = [v for record in enc.encode_rows(rows).records for _, v in events(*record)]
    assert b'"v":"a\\u0008b"' in values[0]
    assert b'"v":"x\\u000cy"' in values[1] and b'"v":"\\\\f"' in values[1]
    assert b'"v":"\\u0008"' in values[2]
    assert b'"v":"\\\\b\\\\f"' in values[3]
    assert all(json.loads(v) for v in values)
