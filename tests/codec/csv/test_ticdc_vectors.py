"""Byte-for-byte against TiCDC's CSV test vectors (pingcap/ticdc ``pkg/sink/codec/csv``:
``TestFormatWithQuotes``, ``TestFormatWithEscape``, ``TestCSVMessageEncode``,
``TestConvertToCSVType``, ``TestEncodeHeader``, ``TestCSVBatchCodecWithHeader``; pingcap/tiflow
``TestCSVMessageEncode`` for the classic handle-key column), transcribed as data."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from tisink.codec.config import EncoderConfig
from tisink.codec.csv.encoder import CSVEncoder
from tisink.codec.csv.options import CSVOptions
from tisink.codec.csv.text import escaped, quoted
from tisink.codec.csv.values import field_for
from tisink.codec.errors import CodecError
from tisink.model.events import RowChangedEvent
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo

TS = 435661838416609281


@pytest.mark.parametrize(
    ("value", "want"),
    [("a,b,c", '"a,b,c"'), ('"a,b,c', '"""a,b,c"'), ("", '""')],
)
def test_format_with_quotes(value: str, want: str) -> None:
    assert quoted(value, '"') == want


@pytest.mark.parametrize(
    ("delimiter", "value", "want"),
    [
        (",", "abcdef", "abcdef"),
        (",", "abc\r\ndef", "abc\\r\\ndef"),
        (",", "abc\\def", "abc\\\\def"),
        (",", "abc,def", "abc\\,def"),
        ("***", "abc***def", "abc\\*\\*\\*def"),
        ("?", "abc\\def?ghi\\r\\n", "abc\\\\def\\?ghi\\\\r\\\\n"),
    ],
)
def test_format_with_escape(delimiter: str, value: str, want: str) -> None:
    assert escaped(value, delimiter) == want


def _table(name: str, values: list[Any]) -> tuple[TableInfo, dict[str, Any]]:
    """A table whose columns hold ``values`` as TiCDC's test gives them (int, float, str)."""
    columns = []
    image: dict[str, Any] = {}
    for i, value in enumerate(values):
        kind = "varchar"
        if isinstance(value, int):
            kind = "int"
        elif isinstance(value, float):
            kind = "double"
        columns.append(ColumnInfo(f"c{i}", kind, charset="utf8mb4"))
        image[f"c{i}"] = value
    return TableInfo("test", name, 1, 1, tuple(columns)), image


def _encoder(**options: Any) -> CSVEncoder:
    return CSVEncoder(EncoderConfig(protocol="csv", options=CSVOptions(**options), time_zone="UTC"))


MESSAGES = [
    (
        dict(delimiter=",", quote='"', terminator="\n", null="\\N", include_commit_ts=True),
        "I",
        "table1",
        [123, "hello,world"],
        b'"I","table1","test",435661838416609281,123,"hello,world"\n',
    ),
    (
        dict(delimiter="!", quote="", terminator="\n", null="\\N", include_commit_ts=True),
        "U",
        "table2",
        ["a!b!c", "def"],
        b"U!table2!test!435661838416609281!a\\!b\\!c!def\n",
    ),
    (
        dict(
            delimiter="!",
            quote="",
            terminator="\n",
            null="\\N",
            include_commit_ts=True,
            output_old_value=True,
        ),
        "I",
        "table2",
        ["a!b!c", "def"],
        b"I!table2!test!435661838416609281!false!a\\!b\\!c!def\n",
    ),
    (
        dict(delimiter=",", quote='"', terminator="\n", null="\\N", include_commit_ts=True),
        "U",
        "table3",
        ["a,b,c", "def", "2022-08-31 17:07:00"],
        b'"U","table3","test",435661838416609281,"a,b,c","def","2022-08-31 17:07:00"\n',
    ),
    (
        dict(delimiter="[*]", quote="", terminator="\r\n", null="\\N"),
        "D",
        "table4",
        ["a[*]b[*]c", "def"],
        b"D[*]table4[*]test[*]a\\[\\*\\]b\\[\\*\\]c[*]def\r\n",
    ),
    (
        dict(delimiter="[*]", quote="'", terminator="\n", null="\\N"),
        "I",
        "table5",
        ["a[*]b[*]c", "def", None, 12345.678],
        b"'I'[*]'table5'[*]'test'[*]'a[*]b[*]c'[*]'def'[*]\\N[*]12345.678\n",
    ),
    (
        dict(delimiter=",", quote="", terminator="\n", null="\\N", include_commit_ts=True),
        "U",
        "table6",
        ["a\\b\\c", "def\n"],
        b"U,table6,test,435661838416609281,a\\\\b\\\\c,def\\n\n",
    ),
    (
        dict(delimiter=",", quote="'", terminator="\n", null="\\N"),
        "I",
        "table7",
        ["\\", "\\\r", "\\\\"],
        b"'I','table7','test','\\','\\\r','\\\\'\n",
    ),
    (
        dict(delimiter="\t", quote='"', terminator="\n", null="\\N", include_commit_ts=True),
        "D",
        "table8",
        ["a\tb", 123.456, "你好，世界"],
        '"D"\t"table8"\t"test"\t435661838416609281\t"a\tb"\t123.456\t"你好，世界"\n'.encode(),
    ),
]


@pytest.mark.parametrize(("options", "op", "name", "values", "want"), MESSAGES)
def test_csv_message_encode(
    options: dict[str, Any], op: str, name: str, values: list[Any], want: bytes
) -> None:
    table, image = _table(name, values)
    before = {k: None for k in image} if op == "U" else None
    if op == "D":
        before, image = image, None  # type: ignore[assignment]
    row = RowChangedEvent(TS - 1, TS, table, before, image)
    encoder = _encoder(**options)
    assert encoder.encode_row(row) + options["terminator"].encode() == want


def test_update_with_old_value_is_a_delete_and_an_insert_line() -> None:
    """TiCDC's commented-out vector without the handle key it does not support: the old row as
    ``D`` and the new as ``I``, both marked as an update."""
    table, image = _table("table2", ["a!b!c", "def"])
    row = RowChangedEvent(TS - 1, TS, table, {"c0": "a!b!c", "c1": "abc"}, image)
    encoder = _encoder(
        delimiter="!", quote="", terminator="\n", include_commit_ts=True, output_old_value=True
    )
    assert encoder.encode_row(row) + b"\n" == (
        b"D!table2!test!435661838416609281!true!a\\!b\\!c!abc\n"
        b"I!table2!test!435661838416609281!true!a\\!b\\!c!def\n"
    )


def _column(mysql_type: str, **kw: Any) -> ColumnInfo:
    return ColumnInfo("c", mysql_type, **kw)


CONVERSIONS = [
    (_column("tinyint"), 1, "1"),
    (_column("smallint"), 1, "1"),
    (_column("mediumint"), 1, "1"),
    (_column("int"), 1, "1"),
    (_column("bigint"), 1, "1"),
    (_column("tinyint", unsigned=True), 1, "1"),
    (_column("bigint", unsigned=True), 1, "1"),
    (_column("float"), 3.14, "3.14"),
    (_column("double"), 3.14, "3.14"),
    (_column("bit", length=10), 683, "683"),
    (_column("decimal"), "129012.1230000", '"129012.1230000"'),
    (_column("tinytext", charset="utf8mb4"), "hello world", '"hello world"'),
    (_column("mediumtext", charset="utf8mb4"), "hello world", '"hello world"'),
    (_column("text", charset="utf8mb4"), "hello world", '"hello world"'),
    (_column("longtext", charset="utf8mb4"), "hello world", '"hello world"'),
    (_column("varchar", charset="utf8mb4"), "hello world", '"hello world"'),
    (_column("char", charset="utf8mb4"), "hello world", '"hello world"'),
    (_column("json"), {"key": "value"}, '"{""key"": ""value""}"'),
    (_column("tinyblob"), "aGVsbG8gd29ybGQ=", '"aGVsbG8gd29ybGQ="'),
    (_column("mediumblob"), "aGVsbG8gd29ybGQ=", '"aGVsbG8gd29ybGQ="'),
    (_column("blob"), "aGVsbG8gd29ybGQ=", '"aGVsbG8gd29ybGQ="'),
    (_column("longblob"), "aGVsbG8gd29ybGQ=", '"aGVsbG8gd29ybGQ="'),
    (_column("varbinary"), "aGVsbG8gd29ybGQ=", '"aGVsbG8gd29ybGQ="'),
    (_column("binary"), "aGVsbG8gd29ybGQ=", '"aGVsbG8gd29ybGQ="'),
    (_column("enum", elements=("a,", "b")), "a,", '"a,"'),
    (_column("set", elements=("a", "b", "c", "d")), ["d", "a"], '"a,d"'),
    (_column("date"), "2000-01-01", '"2000-01-01"'),
    (_column("datetime"), "2015-12-20 23:58:58", '"2015-12-20 23:58:58"'),
    (_column("timestamp"), "1973-12-30 15:30:00", '"1973-12-30 15:30:00"'),
    (_column("time"), "23:59:59", '"23:59:59"'),
    (_column("year"), 1970, "1970"),
    (_column("vector"), [1, 2, 3, 4, 5], '"[1,2,3,4,5]"'),
]


@pytest.mark.parametrize(("column", "value", "want"), CONVERSIONS)
def test_convert_to_csv_type(column: ColumnInfo, value: Any, want: str) -> None:
    """``TestConvertToCSVType``: strings are quoted, numbers are not."""
    assert field_for(column, CSVOptions(), datetime.UTC)(value) == want


@pytest.mark.parametrize(
    ("mysql_type", "want"),
    [
        ("tinyblob", '"68656c6c6f20776f726c64"'),
        ("blob", '"68656c6c6f20776f726c64"'),
        ("varbinary", '"68656c6c6f20776f726c64"'),
        ("binary", '"68656c6c6f20776f726c64"'),
    ],
)
def test_binary_as_hex(mysql_type: str, want: str) -> None:
    options = CSVOptions(binary_encoding_method="hex")
    assert field_for(_column(mysql_type), options, datetime.UTC)("aGVsbG8gd29ybGQ=") == want


def test_float_uses_go_percent_v() -> None:
    """Go's ``%v`` switches to an exponent at 1e6 and below 1e-4 (not JSON's 1e21)."""
    double = field_for(_column("double"), CSVOptions(), datetime.UTC)
    assert [double(v) for v in (1e6, 123456.0, 1e-5, 1e-4, 1.5e300, -0.0)] == [
        "1e+06",
        "123456",
        "1e-05",
        "0.0001",
        "1.5e+300",
        "-0",
    ]
    single = field_for(_column("float"), CSVOptions(), datetime.UTC)
    assert single(16777216.0) == "1.6777216e+07"
    assert single(0.1) == "0.1"


def test_encode_header() -> None:
    table = TableInfo("test", "t", 1, 1, (ColumnInfo("col1", "int"), ColumnInfo("col2", "int")))

    def header(**options: Any) -> bytes:
        return _encoder(output_field_header=True, **options).header(table)

    base = dict(delimiter=" ", terminator="")
    assert header(**base, output_old_value=True, include_commit_ts=True) == (
        b"ticdc-meta$operation ticdc-meta$table ticdc-meta$schema ticdc-meta$commit-ts "
        b"ticdc-meta$is-update col1 col2"
    )
    assert header(**base, include_commit_ts=True) == (
        b"ticdc-meta$operation ticdc-meta$table ticdc-meta$schema ticdc-meta$commit-ts col1 col2"
    )
    assert header(**base) == b"ticdc-meta$operation ticdc-meta$table ticdc-meta$schema col1 col2"
    assert header(delimiter=",", terminator="") == (
        b"ticdc-meta$operation,ticdc-meta$table,ticdc-meta$schema,col1,col2"
    )
    assert header(delimiter=",", terminator="\n") == (
        b"ticdc-meta$operation,ticdc-meta$table,ticdc-meta$schema,col1,col2\n"
    )
    assert _encoder(delimiter=",").header(table) == b""


def test_classic_update_with_old_value_and_handle_key() -> None:
    """tiflow ``TestCSVMessageEncode`` (c7b2588e), "update with old value" with
    ``OutputHandleKey``: the classic CSV (``newarch=false``) writes the handle (an
    ``IntHandle``, 1) after ``is-update``; the new architecture ignores the setting."""
    table = TableInfo(
        "test",
        "table2",
        1,
        1,
        (
            ColumnInfo("id", "int", nullable=False),
            ColumnInfo("c0", "varchar", charset="utf8mb4"),
            ColumnInfo("c1", "varchar", charset="utf8mb4"),
        ),
        (IndexInfo("PRIMARY", ("id",), unique=True, primary=True),),
    )
    before = {"id": 1, "c0": "a!b!c", "c1": "abc"}
    after = {"id": 1, "c0": "a!b!c", "c1": "def"}
    row = RowChangedEvent(TS - 1, TS, table, before, after)
    options = dict(delimiter="!", quote="", terminator="\n", include_commit_ts=True)
    classic = _encoder(**options, output_old_value=True, output_handle_key=True, newarch=False)
    # the head through the handle is tiflow's vector byte for byte; the Go vector sets the
    # handle apart from its two string columns, a feed row carries its key column too
    head = b"D!table2!test!435661838416609281!true!1!"
    assert classic.encode_row(row).startswith(head)
    assert classic.encode_row(row) + b"\n" == (
        b"D!table2!test!435661838416609281!true!1!1!a\\!b\\!c!abc\n"
        b"I!table2!test!435661838416609281!true!1!1!a\\!b\\!c!def\n"
    )
    new = _encoder(**options, output_old_value=True, output_handle_key=True)
    assert new.encode_row(row) + b"\n" == (
        b"D!table2!test!435661838416609281!true!1!a\\!b\\!c!abc\n"
        b"I!table2!test!435661838416609281!true!1!a\\!b\\!c!def\n"
    )
    keyless = TableInfo("test", "t", 2, 1, (ColumnInfo("c", "varchar", charset="utf8mb4"),))
    with pytest.raises(CodecError, match="output-handle-key"):
        classic.encode_row(RowChangedEvent(TS - 1, TS, keyless, None, {"c": "x"}))


def test_csv_batch_codec_with_header() -> None:
    """ticdc ``TestCSVBatchCodecWithHeader`` (b813e76f): ``create table
    test.table1(col1 int primary key)``, include-commit-ts: the header names the head columns
    and col1; the rows are the same with and without it."""
    table = TableInfo(
        "test",
        "table1",
        1,
        1,
        (ColumnInfo("col1", "int", nullable=False),),
        (IndexInfo("PRIMARY", ("col1",), unique=True, primary=True),),
    )
    options = dict(delimiter=",", quote='"', terminator="\n", null="\\N", include_commit_ts=True)
    with_header = _encoder(**options, output_field_header=True)
    assert with_header.header(table).split(b"\n")[0] == (
        b"ticdc-meta$operation,ticdc-meta$table,ticdc-meta$schema,ticdc-meta$commit-ts,col1"
    )
    rows = [RowChangedEvent(TS - 1, TS, table, None, {"col1": n}) for n in (1, 2)]
    plain = _encoder(**options)
    assert with_header.encode_rows(rows).records == plain.encode_rows(rows).records
