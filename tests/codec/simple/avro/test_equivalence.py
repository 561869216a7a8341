"""Property tests: the direct marshaller equals fastavro, and decodes to the right values.

Random tables cover every MySQL type (signed and unsigned, nullable, virtual generated columns,
defaults, BIT widths, binary(N)); random rows fill them. For every message type the bytes must
equal fastavro's ``schemaless_writer`` on the official schema fed the native datum (union
branches picked by name, map entries in column order), and the independent tagged reader must
find the value each column should carry.
"""

from __future__ import annotations

import base64
import datetime
import struct
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tisink.codec.simple.avro import AvroMarshaller
from tisink.codec.simple.avro.generic import GenericAvroMarshaller, decode_message
from tisink.codec.simple.json_schema import drops_pre_table_schema
from tisink.codec.values import json_text, vector_text
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent, RowChecksum
from tisink.model.mysqltypes import INTEGER_RANGES, MYSQL_TYPES
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
# schema and table names: any text MySQL takes in an identifier (no U+0000)
IDENTIFIER = st.text(
    st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), max_size=12
)
NAMES = st.text("abcdefghijklmnopqrstuvwxyz_0123456789", min_size=1, max_size=8)
UINT64 = st.integers(0, (1 << 64) - 1)
INT64 = st.integers(-(1 << 63), (1 << 63) - 1)
BYTES_TYPES = ("binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob")
TEXT_TYPES = ("char", "varchar", "tinytext", "text", "mediumtext", "longtext")
NUMERIC = ("tinyint", "smallint", "mediumint", "int", "bigint", "float", "double", "decimal")


@st.composite
def columns(draw: st.DrawFn, name: str) -> ColumnInfo:
    mysql_type = draw(st.sampled_from(MYSQL_TYPES))
    elements: tuple[str, ...] = ()
    if mysql_type in ("enum", "set"):
        elements = tuple(draw(st.lists(NAMES, min_size=1, max_size=6, unique=True)))
    length = (
        draw(st.integers(1, 64)) if mysql_type in ("bit", "binary") else draw(st.integers(0, 300))
    )
    default: Any = None
    if draw(st.booleans()):
        if mysql_type == "bit":
            # UTF-8-safe raw bytes, so fastavro (text strings only) can write the default too.
            width = (length + 7) // 8
            default = int.from_bytes(draw(st.binary(min_size=width, max_size=width)), "big")
            default &= int.from_bytes(b"\x7f" * width, "big") & ((1 << length) - 1)
        else:
            default = draw(st.one_of(TEXT, st.integers(-1000, 1000)))
    text = mysql_type in TEXT_TYPES or mysql_type in ("enum", "set")
    return ColumnInfo(
        name=name,
        mysql_type=mysql_type,
        charset="utf8mb4" if text else "binary",
        collate="utf8mb4_bin" if text else "binary",
        length=length,
        decimal=draw(st.integers(0, 6)),
        elements=elements,
        unsigned=draw(st.booleans()) if mysql_type in (*NUMERIC, "bit", "year") else False,
        zerofill=draw(st.booleans()) if mysql_type in NUMERIC else False,
        nullable=draw(st.booleans()),
        default=default,
        generated=draw(st.sampled_from([None, None, None, "stored", "virtual"])),
    )


@st.composite
def tables(draw: st.DrawFn) -> TableInfo:
    names = draw(st.lists(NAMES, min_size=1, max_size=10, unique=True))
    cols = tuple(draw(columns(n)) for n in names)
    stored = [c.name for c in cols if not c.virtual]
    indexes: list[IndexInfo] = []
    if stored and draw(st.booleans()):
        key = tuple(draw(st.lists(st.sampled_from(stored), min_size=1, max_size=3, unique=True)))
        primary = draw(st.booleans())
        indexes.append(IndexInfo("PRIMARY" if primary else "uk", key, True, primary))
    return TableInfo(
        schema=draw(IDENTIFIER),
        table=draw(IDENTIFIER),
        table_id=draw(st.integers(1, 1 << 40)),
        version=draw(UINT64),
        columns=cols,
        indexes=tuple(indexes),
    )


def _stamp(moment: datetime.datetime, fsp: int) -> str:
    text = moment.strftime("%Y-%m-%d %H:%M:%S")
    return text + ("." + f"{moment.microsecond:06d}"[:fsp] if fsp else "")


def value_for(column: ColumnInfo) -> st.SearchStrategy[Any]:
    t = column.mysql_type
    if t in INTEGER_RANGES:
        low, high, umax = INTEGER_RANGES[t]
        return st.integers(0, umax) if column.unsigned else st.integers(low, high)
    if t == "float":
        return st.floats(width=32, allow_nan=False, allow_infinity=False)
    if t == "double":
        return st.floats(allow_nan=False, allow_infinity=False)
    if t == "decimal":
        return st.decimals(allow_nan=False, allow_infinity=False, places=3).map(str)
    if t in TEXT_TYPES:
        return TEXT
    if t in BYTES_TYPES:
        size = column.length if t == "binary" else 40
        return st.binary(max_size=size).map(lambda b: base64.b64encode(b).decode())
    if t in ("date", "datetime", "timestamp"):
        moments = st.datetimes(datetime.datetime(1970, 1, 2), datetime.datetime(2037, 12, 31))
        fsp = 0 if t == "date" else column.decimal
        render = (lambda m: m.strftime("%Y-%m-%d")) if t == "date" else (lambda m: _stamp(m, fsp))
        return moments.map(render)
    if t == "time":
        return st.tuples(st.integers(-838, 838), st.integers(0, 59), st.integers(0, 59)).map(
            lambda hms: f"{hms[0]:03d}:{hms[1]:02d}:{hms[2]:02d}"
        )
    if t == "year":
        return st.integers(1901, 2155)
    if t == "enum":
        return st.sampled_from(column.elements)
    if t == "set":
        return st.lists(st.sampled_from(column.elements), unique=True)
    if t == "bit":
        return st.integers(0, (1 << column.length) - 1)
    if t == "json":
        scalars = (
            st.none()
            | st.booleans()
            | INT64
            | st.floats(allow_nan=False, allow_infinity=False)
            | TEXT
        )
        return st.recursive(
            scalars,
            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
            max_leaves=6,
        )
    assert t == "vector"
    return st.lists(st.floats(width=32, allow_nan=False, allow_infinity=False), max_size=5)


@st.composite
def images(draw: st.DrawFn, table: TableInfo) -> dict[str, Any]:
    image = {}
    for column in table.stored_columns:
        null = column.nullable and draw(st.integers(0, 4)) == 0
        image[column.name] = None if null else draw(value_for(column))
    return image


@st.composite
def rows(draw: st.DrawFn) -> RowChangedEvent:
    table = draw(tables())
    op = draw(st.sampled_from(["INSERT", "UPDATE", "DELETE"]))
    checksum = None
    if draw(st.booleans()):
        u32 = st.integers(0, (1 << 32) - 1)
        checksum = RowChecksum(draw(st.integers(0, 3)), draw(st.booleans()), draw(u32), draw(u32))
    return RowChangedEvent(
        start_ts=1,
        commit_ts=draw(UINT64),
        table=table,
        before=draw(images(table)) if op != "INSERT" else None,
        after=draw(images(table)) if op != "DELETE" else None,
        physical_table_id=draw(st.sampled_from([None, table.table_id + 1])),
        checksum=checksum,
    )


def expected_value(column: ColumnInfo, value: Any) -> tuple[str, Any]:
    """The (branch, decoded value) spec 3.3 asks for, worked out without the marshaller."""
    if value is None:
        return ("null", None)
    t = column.mysql_type
    if t == "bigint" and column.unsigned:
        return ("com.pingcap.simple.avro.UnsignedBigint", {"value": value - (value >> 63 << 64)})
    if t in INTEGER_RANGES or t == "year":
        return ("long", value)
    if t == "float":
        return ("float", struct.unpack("<f", struct.pack("<f", value))[0])
    if t == "double":
        return ("double", value)
    if t in BYTES_TYPES:
        raw = base64.b64decode(value)
        return ("bytes", raw.ljust(column.length, b"\0") if t == "binary" else raw)
    if t == "timestamp":
        return ("com.pingcap.simple.avro.Timestamp", {"location": "UTC", "value": value})
    if t == "enum":
        return ("long", column.elements.index(value) + 1)
    if t == "set":
        return ("long", sum(1 << column.elements.index(v) for v in value))
    if t == "bit":
        return ("string", str(value))
    if t == "json":
        return ("string", json_text(value))
    if t == "vector":
        return ("string", vector_text(value))
    return ("string", value)


ZONES = st.sampled_from(["UTC", "Asia/Shanghai", "America/New_York"])


@SETTINGS
@given(
    row=rows(),
    build_ts=INT64,
    handle_key_only=st.booleans(),
    location=st.none() | TEXT,
    zone=ZONES,
    newarch=st.booleans(),
)
def test_dml_equals_fastavro(
    row: RowChangedEvent,
    build_ts: int,
    handle_key_only: bool,
    location: str | None,
    zone: str,
    newarch: bool,
) -> None:
    kwargs = {"handle_key_only": handle_key_only, "claim_check_location": location}
    ours = AvroMarshaller(zone, newarch=newarch).marshal_row(row, build_ts, **kwargs)
    generic = GenericAvroMarshaller(zone, newarch=newarch)
    assert ours == generic.marshal_row(row, build_ts, **kwargs)


@SETTINGS
@given(row=rows(), handle_key_only=st.booleans())
def test_dml_decodes_to_spec_values(
    tagged: Any, row: RowChangedEvent, handle_key_only: bool
) -> None:
    payload = AvroMarshaller("UTC").marshal_row(row, 7, handle_key_only=handle_key_only)
    assert payload[:3] == b"\x16\x06\x06"
    _, message = tagged.read(payload)
    _, dml = message["payload"]
    table = row.table
    keep = [c for c in table.stored_columns if not handle_key_only or c.name in table.handle_key]
    assert dml["type"] == row.op.value
    assert dml["tableID"] == row.physical_table_id
    assert dml["handleKeyOnly"] == (("boolean", True) if handle_key_only else ("null", None))
    for field, image in (("data", row.after), ("old", row.before)):
        if image is None:
            assert dml[field] == ("null", None)
        else:
            expected = {c.name: expected_value(c, image[c.name]) for c in keep}
            assert dml[field] == ("map", expected)
            assert list(dml[field][1]) == [c.name for c in keep]


DDL_TYPES = st.sampled_from(list(DDLType))


@SETTINGS
@given(
    table=st.none() | tables(),
    pre_table=st.none() | tables(),
    ddl_type=DDL_TYPES,
    query=TEXT,
    commit_ts=UINT64,
    build_ts=INT64,
    newarch=st.booleans(),
)
def test_ddl_equals_fastavro(
    table: TableInfo | None,
    pre_table: TableInfo | None,
    ddl_type: DDLType,
    query: str,
    commit_ts: int,
    build_ts: int,
    newarch: bool,
) -> None:
    ddl = DDLEvent(commit_ts, ddl_type, query, table, pre_table)
    ours = AvroMarshaller("UTC", newarch=newarch).marshal_ddl(ddl, build_ts)
    assert ours[:3] == b"\x16\x04\x04"
    assert ours == GenericAvroMarshaller("UTC", newarch=newarch).marshal_ddl(ddl, build_ts)
    decoded = decode_message(ours)["payload"]
    assert decoded["type"] == ddl_type.value
    no_pre = drops_pre_table_schema(newarch) or pre_table is None or ddl_type is DDLType.CREATE
    assert (decoded["preTableSchema"] is None) == no_pre


@SETTINGS
@given(table=tables(), build_ts=INT64, newarch=st.booleans())
def test_bootstrap_equals_fastavro(table: TableInfo, build_ts: int, newarch: bool) -> None:
    ddl = DDLEvent.bootstrap(table)
    ours = AvroMarshaller("UTC", newarch=newarch).marshal_ddl(ddl, build_ts)
    assert ours[:3] == b"\x16\x02\x02"
    assert ours == GenericAvroMarshaller("UTC", newarch=newarch).marshal_ddl(ddl, build_ts)
    schema = decode_message(ours)["payload"]["tableSchema"]
    columns = table.columns if newarch else sorted(table.columns, key=lambda c: c.id)
    assert [c["name"] for c in schema["columns"]] == [c.name for c in columns]


@SETTINGS
@given(ts=UINT64, build_ts=INT64)
def test_watermark_equals_fastavro(ts: int, build_ts: int) -> None:
    ours = AvroMarshaller("UTC").marshal_checkpoint(ts, build_ts)
    assert ours == GenericAvroMarshaller("UTC").marshal_checkpoint(ts, build_ts)
    decoded = decode_message(ours)
    assert decoded == {
        "type": "WATERMARK",
        "payload": {"version": 1, "commitTs": ts - (ts >> 63 << 64), "buildTs": build_ts},
    }
