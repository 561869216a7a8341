"""The generated plain-DML writer against the column converters and the field order of spec 1.

``JSONRowRenderer.dml`` inlines the common value forms; the oracle here is the converter of each
column (the checking form of the rule) dumped with ``go_dumps``, under a header assembled field
by field, so every inline shortcut must agree with its converter byte for byte.
"""

from __future__ import annotations

import base64
import datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.codec.errors import CodecError
from tisink.codec.gojson import go_dumps
from tisink.codec.simple.json_converters import converter_for
from tisink.codec.simple.json_marshaller import JSONMarshaller
from tisink.codec.values import zone_for
from tisink.model import ColumnInfo, IndexInfo, RowChangedEvent, TableInfo, make_table

TEXT = {"charset": "utf8mb4", "collate": "utf8mb4_bin"}
TABLE = make_table(
    "db<&>%d",  # HTML-escaped by Go, and a "%" the byte templates must not read as a format
    "t\u2028%s",
    41,
    3,
    [
        ColumnInfo("id", "bigint", nullable=False),
        ColumnInfo("yr", "year"),
        ColumnInfo("dec", "decimal", length=20, decimal=4),
        ColumnInfo("d", "double"),
        ColumnInfo("f", "float"),
        ColumnInfo("s", "varchar", length=64, **TEXT),
        ColumnInfo("ts", "timestamp", decimal=6),
        ColumnInfo("en", "enum", elements=("a", "b<"), **TEXT),
        ColumnInfo("bn", "binary", length=4),
        ColumnInfo("vb", "varbinary", length=16),
    ],
    [IndexInfo("primary", ("id",), unique=True, primary=True)],
)
_timestamps = st.builds(
    lambda moment, fraction: moment.strftime("%Y-%m-%d %H:%M:%S") + fraction,
    st.datetimes(datetime.datetime(1971, 1, 1), datetime.datetime(2037, 12, 31)),
    st.sampled_from(["", ".5", ".000001", ".654321"]),
)
_base64 = st.binary(max_size=4).map(lambda b: base64.b64encode(b).decode()) | st.sampled_from(
    ["AB==", "AAF=", "AAEC", "AAECAw==", "/w==", "//8="]  # the first two are not canonical
)
_images = st.fixed_dictionaries(
    {
        "id": st.integers(-(1 << 63), (1 << 63) - 1),
        "yr": st.none() | st.integers(1901, 2155),
        "dec": st.none() | st.from_regex(r"-?[0-9]{1,12}(\.[0-9]{1,4})?", fullmatch=True),
        "d": st.none() | st.floats(),
        "f": st.none() | st.floats(width=32),
        "s": st.none() | st.text(max_size=12),
        "ts": st.none() | _timestamps | st.just("0000-00-00 00:00:00"),
        "en": st.none() | st.sampled_from(["a", "b<", ""]),
        "bn": st.none() | _base64,
        "vb": st.none() | _base64,
    }
)
_NO_BINARY = {"bn": None, "vb": None}


def _expected(table: TableInfo, row: RowChangedEvent, zone: str, build_ts: int) -> bytes:
    """The message per spec 1 from the converters, one field at a time."""
    zone_name, tz = zone_for(zone)
    columns = sorted(table.stored_columns, key=lambda c: c.name)

    def dumped(image: dict[str, Any]) -> bytes:
        data = {}
        for column in columns:
            value = image[column.name]
            convert = converter_for(column, tz, zone_name)
            data[column.name] = None if value is None else convert(value)
        return go_dumps(data)

    op = "INSERT" if row.before is None else "DELETE" if row.after is None else "UPDATE"
    head = {
        "version": 1,
        "database": table.schema,
        "table": table.table,
        "tableID": row.physical_table_id,
        "type": op,
        "commitTs": row.commit_ts,
        "buildTs": build_ts,
        "schemaVersion": table.version,
    }
    out = go_dumps(head)[:-1]
    if row.after is not None:
        out += b',"data":' + dumped(row.after)
    if row.before is not None:
        out += b',"old":' + dumped(row.before)
    return out + b"}"


@settings(deadline=None)
@given(
    before=st.none() | _images,
    after=st.none() | _images,
    zone=st.sampled_from(["UTC", "Asia/Shanghai", "America/New_York"]),
    commit_ts=st.integers(0, (1 << 64) - 1),
)
def test_dml_matches_the_converters(
    before: dict[str, Any] | None, after: dict[str, Any] | None, zone: str, commit_ts: int
) -> None:
    if before is None and after is None:
        after = {"id": 1, "yr": None, "dec": None, "d": None, "f": None, "s": None}
        after |= {"ts": None, "en": None} | _NO_BINARY
    row = RowChangedEvent(1, commit_ts, TABLE, before, after)
    marshaller = JSONMarshaller(zone)
    assert marshaller.renderer(TABLE).dml is not None  # the generated writer is in use
    assert marshaller.marshal_row(row, 1_700_000_000_000) == _expected(
        TABLE, row, zone, 1_700_000_000_000
    )


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.none() | _images,
            _images,
            st.sampled_from([7, 8]),  # commitTs: runs of one transaction, and changes
            st.sampled_from([41, 42]),  # physical tableID: partitions of one table
            st.booleans(),  # a DELETE (the image as before) or an INSERT/UPDATE
        ),
        max_size=12,
    )
)
def test_a_run_of_rows_gets_the_heads_of_each_row(
    rows: list[tuple[dict[str, Any] | None, dict[str, Any], int, int, bool]],
) -> None:
    """``marshal_rows`` makes message heads once per tableID and commitTs: a run whose rows
    change either must still give every row its own, as one row at a time does."""
    events = [
        RowChangedEvent(1, ts, TABLE, image, None, physical_table_id=table_id)
        if delete
        else RowChangedEvent(1, ts, TABLE, before, image, physical_table_id=table_id)
        for before, image, ts, table_id, delete in rows
    ]
    got = JSONMarshaller("UTC").marshal_rows(events, 1_700_000_000_000)
    assert got == [_expected(TABLE, row, "UTC", 1_700_000_000_000) for row in events]


def test_lone_surrogate_takes_the_repairing_path() -> None:
    image = {"id": 1, "yr": None, "dec": "-1.5", "d": 1e-7, "f": None, "s": "a\ud800"}
    row = RowChangedEvent(1, 2, TABLE, after=image | {"ts": None, "en": "b<"} | _NO_BINARY)
    message = JSONMarshaller("UTC").marshal_row(row, 3)
    assert b'"s":"a\xef\xbf\xbd"' in message
    assert b'"d":"0.0000001","dec":"-1.5","en":"2"' in message


@pytest.mark.parametrize("bad", ["1.", ".5", "", "1.2.3", "--1", "\u0661\u0662", "1e5", 5])
def test_bad_decimal_names_the_column(bad: object) -> None:
    image = {"id": 1, "yr": None, "dec": bad, "d": None, "f": None, "s": None}
    row = RowChangedEvent(1, 2, TABLE, after=image | {"ts": None, "en": None} | _NO_BINARY)
    with pytest.raises(CodecError, match="column 'dec': cannot render decimal"):
        JSONMarshaller("UTC").marshal_row(row, 3)


@pytest.mark.parametrize(
    ("column", "value", "text"),
    [
        ("vb", "AB==", "AA=="),  # bits past the last byte are dropped, as Go's decoder does
        ("vb", "AAF=", "AAE="),
        ("vb", "", ""),
        ("bn", "AA==", "AAAAAA=="),  # binary(4) is zero-padded
        ("bn", "AAECAw==", "AAECAw=="),
    ],
)
def test_binary_is_written_canonical(column: str, value: str, text: str) -> None:
    image = {"id": 1, "yr": None, "dec": None, "d": None, "f": None, "s": None, "ts": None}
    row = RowChangedEvent(1, 2, TABLE, after=image | {"en": None} | _NO_BINARY | {column: value})
    assert f'"{column}":"{text}"'.encode() in JSONMarshaller("UTC").marshal_row(row, 3)


@pytest.mark.parametrize(
    ("column", "bad"), [("vb", "AAE"), ("vb", "A A="), ("vb", 5), ("bn", "AAECAwQ=")]
)
def test_bad_binary_names_the_column(column: str, bad: object) -> None:
    image = {"id": 1, "yr": None, "dec": None, "d": None, "f": None, "s": None, "ts": None}
    row = RowChangedEvent(1, 2, TABLE, after=image | {"en": None} | _NO_BINARY | {column: bad})
    with pytest.raises(CodecError, match=f"column '{column}'"):
        JSONMarshaller("UTC").marshal_row(row, 3)
