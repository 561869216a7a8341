"""AvroMarshaller behaviour the goldens do not pin: zones, schema rules, fallbacks, errors."""

from __future__ import annotations

from typing import Any

import pytest

from tisink.codec.errors import CodecError
from tisink.codec.simple.avro import AvroMarshaller
from tisink.codec.simple.avro import marshaller as marshaller_module
from tisink.codec.simple.avro.generic import GenericAvroMarshaller, decode_message
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent, RowChecksum
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table


def _table(*columns: ColumnInfo, key: tuple[str, ...] = ("id",), version: int = 5) -> TableInfo:
    cols = (ColumnInfo("id", "int", length=11, nullable=False), *columns)
    indexes = [IndexInfo("PRIMARY", key, True, True)] if key else []
    return make_table("db", "tbl", 42, version, cols, indexes)


def _dml(tagged: Any, payload: bytes) -> dict[str, Any]:
    _, message = tagged.read(payload)
    return message["payload"][1]


def _schema_columns(tagged: Any, table: TableInfo) -> dict[str, Any]:
    _, message = tagged.read(AvroMarshaller("UTC").marshal_ddl(DDLEvent.bootstrap(table), 1))
    return {c["name"]: c for c in message["payload"][1]["tableSchema"]["columns"]}


def test_timestamp_in_the_sink_time_zone(tagged: Any) -> None:
    table = _table(ColumnInfo("ts", "timestamp", length=19))
    row = RowChangedEvent(1, 2, table, after={"id": 1, "ts": "2020-02-20 10:20:20"})
    data = _dml(tagged, AvroMarshaller("Asia/Shanghai").marshal_row(row, 3))["data"][1]
    assert data["ts"] == (
        "com.pingcap.simple.avro.Timestamp",
        {"location": "Asia/Shanghai", "value": "2020-02-20 18:20:20"},
    )


def test_data_type_fields_follow_ticdc(tagged: Any) -> None:
    table = _table(
        ColumnInfo("u", "int", length=10, unsigned=True),
        ColumnInfo("y", "year", length=4, unsigned=True, zerofill=True),
        ColumnInfo("d", "decimal", length=12, decimal=6),
        ColumnInfo("ts", "timestamp", length=26, decimal=6),
        ColumnInfo("dt", "datetime", length=26, decimal=6),
        ColumnInfo("v", "varchar", "utf8mb4", "utf8mb4_bin", 255, default="x"),
        ColumnInfo("e", "enum", "utf8mb4", "utf8mb4_bin", 1, elements=("a", "b")),
    )
    columns = _schema_columns(tagged, table)
    null, false, true = ("null", None), ("boolean", False), ("boolean", True)
    flags = {
        name: (dt["decimal"], dt["elements"], dt["unsigned"], dt["zerofill"])
        for name, dt in ((n, c["dataType"]) for n, c in columns.items())
    }
    assert flags == {
        "id": (null, null, false, false),
        "u": (null, null, true, false),
        "y": (null, null, true, true),
        "d": (("int", 6), null, false, false),
        "ts": (("int", 6), null, null, null),
        "dt": (null, null, null, null),
        "v": (null, null, null, null),
        "e": (null, ("array", ["a", "b"]), null, null),
    }
    assert columns["v"]["default"] == ("string", "x")
    assert columns["id"]["default"] == ("null", None)
    assert columns["id"]["dataType"]["length"] == 11


@pytest.mark.parametrize("default", [682, "b'1010101010'", "0x2aa"])
def test_bit_default_is_written_raw(tagged: Any, default: Any) -> None:
    table = _table(ColumnInfo("b", "bit", length=10, unsigned=True, default=default))
    payload = AvroMarshaller("UTC").marshal_ddl(DDLEvent.bootstrap(table), 1)
    # bit(10) holds two bytes; the Avro string carries them as they are, not as UTF-8 text.
    assert b"\x02\x04\x02\xaa" in payload
    assert _schema_columns(tagged, table)["b"]["default"] == ("string", "\x02\udcaa")
    assert decode_message(payload)["payload"]["tableSchema"]["columns"][1]["default"] == (
        "\x02\udcaa"
    )
    with pytest.raises(CodecError):
        GenericAvroMarshaller("UTC").marshal_ddl(DDLEvent.bootstrap(table), 1)


def test_bit_default_too_wide_is_an_error() -> None:
    table = _table(ColumnInfo("b", "bit", length=3, default=300))
    with pytest.raises(CodecError, match=r"db\.tbl.*'b'"):
        AvroMarshaller("UTC").marshal_ddl(DDLEvent.bootstrap(table), 1)


def test_handle_key_only_and_claim_check(tagged: Any) -> None:
    table = _table(ColumnInfo("k", "int"), ColumnInfo("v", "varchar"), key=("k", "id"))
    row = RowChangedEvent(1, 2, table, before={"id": 1, "k": 2, "v": "a"}, after=None)
    dml = _dml(
        tagged,
        AvroMarshaller("UTC").marshal_row(
            row, 3, handle_key_only=True, claim_check_location="file:///x/1.json"
        ),
    )
    assert dml["handleKeyOnly"] == ("boolean", True)
    assert dml["claimCheckLocation"] == ("string", "file:///x/1.json")
    assert dml["old"] == ("map", {"id": ("long", 1), "k": ("long", 2)})
    assert dml["data"] == ("null", None)


def test_handle_key_only_without_a_key_writes_an_empty_map(tagged: Any) -> None:
    table = _table(ColumnInfo("v", "varchar"), key=())
    row = RowChangedEvent(1, 2, table, after={"id": 1, "v": "a"})
    dml = _dml(tagged, AvroMarshaller("UTC").marshal_row(row, 3, handle_key_only=True))
    assert dml["data"] == ("map", {})


def test_checksum_and_physical_table_id(tagged: Any) -> None:
    row = RowChangedEvent(
        1,
        2,
        _table(),
        after={"id": 1},
        physical_table_id=77,
        checksum=RowChecksum(1, True, 4294967295, 7),
    )
    dml = _dml(tagged, AvroMarshaller("UTC").marshal_row(row, 3))
    assert dml["tableID"] == 77
    assert dml["checksum"] == (
        "com.pingcap.simple.avro.Checksum",
        {"version": 1, "corrupted": True, "current": 4294967295, "previous": 7},
    )


def test_virtual_generated_columns_are_skipped_in_rows_but_kept_in_schema(tagged: Any) -> None:
    table = _table(ColumnInfo("g", "int", generated="virtual"), ColumnInfo("s", "int"))
    data = _dml(
        tagged,
        AvroMarshaller("UTC").marshal_row(RowChangedEvent(1, 2, table, after={"id": 1, "s": 3}), 3),
    )["data"][1]
    assert list(data) == ["id", "s"]
    assert list(_schema_columns(tagged, table)) == ["id", "g", "s"]


def test_a_new_table_version_is_recompiled(tagged: Any) -> None:
    marshaller = AvroMarshaller("UTC")
    old = _table(ColumnInfo("a", "int"), version=5)
    new = _table(ColumnInfo("a", "varchar"), version=6)
    first = marshaller.marshal_row(RowChangedEvent(1, 2, old, after={"id": 1, "a": 2}), 3)
    again = marshaller.marshal_row(RowChangedEvent(1, 2, old, after={"id": 1, "a": 2}), 3)
    second = marshaller.marshal_row(RowChangedEvent(1, 2, new, after={"id": 1, "a": "2"}), 3)
    assert first == again
    assert _dml(tagged, first)["data"][1]["a"] == ("long", 2)
    assert _dml(tagged, second)["data"][1]["a"] == ("string", "2")
    assert _dml(tagged, second)["schemaVersion"] == 6


def test_compiled_tables_are_bounded(tagged: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(marshaller_module, "MAX_CACHED_TABLES", 2)
    marshaller = AvroMarshaller("UTC")
    tables = [_table(ColumnInfo("a", "int"), version=v) for v in (1, 2, 3)]
    for table in tables:
        marshaller.marshal_row(RowChangedEvent(1, 2, table, after={"id": 1, "a": 2}), 3)
        marshaller.marshal_ddl(DDLEvent.bootstrap(table), 3)
    assert len(marshaller._rows) == 2
    assert len(marshaller._schemas) == 2
    again = marshaller.marshal_row(RowChangedEvent(1, 2, tables[0], after={"id": 1, "a": 2}), 3)
    assert _dml(tagged, again)["schemaVersion"] == 1


def test_ddl_without_table_and_create_without_pre_table(tagged: Any) -> None:
    marshaller = AvroMarshaller("UTC")
    query = marshaller.marshal_ddl(DDLEvent(9, DDLType.QUERY, "CREATE DATABASE d"), 1)
    _, message = tagged.read(query)
    assert message["payload"][1]["type"] == "QUERY"
    assert message["payload"][1]["tableSchema"] == ("null", None)
    table = _table()
    create = DDLEvent(9, DDLType.CREATE, "CREATE TABLE ...", table, pre_table=table)
    _, message = tagged.read(marshaller.marshal_ddl(create, 1))
    assert message["payload"][1]["preTableSchema"] == ("null", None)
    assert message["payload"][1]["tableSchema"][0] == "com.pingcap.simple.avro.TableSchema"


DDL_TYPE_ORDER = ["CREATE", "ALTER", "ERASE", "RENAME", "TRUNCATE", "CINDEX", "DINDEX", "QUERY"]


@pytest.mark.parametrize(("index", "ddl_type"), list(enumerate(DDL_TYPE_ORDER)))
def test_ddl_type_enum_order(index: int, ddl_type: str) -> None:
    payload = AvroMarshaller("UTC").marshal_ddl(DDLEvent(1, DDLType(ddl_type), "q"), 1)
    assert payload[:5] == bytes([0x16, 0x04, 0x04, 0x02, index * 2])


def test_bootstrap_without_table_is_an_error() -> None:
    ddl = DDLEvent(0, DDLType.CREATE, is_bootstrap=True)
    with pytest.raises(CodecError, match="BOOTSTRAP"):
        AvroMarshaller("UTC").marshal_ddl(ddl, 1)


@pytest.mark.parametrize(
    ("column", "value", "match"),
    [
        (ColumnInfo("a", "int"), "x", r"db\.tbl.*'a'.*'x'.*int"),
        (ColumnInfo("a", "float"), 1e300, r"'a'.*float"),
        (ColumnInfo("a", "enum", elements=("p",)), "q", r"'a'"),
        (ColumnInfo("a", "bigint", unsigned=True), -1, r"'a'.*bigint"),
    ],
)
def test_bad_values_name_table_and_column(column: ColumnInfo, value: Any, match: str) -> None:
    row = RowChangedEvent(1, 2, _table(column), after={"id": 1, "a": value})
    with pytest.raises(CodecError, match=match):
        AvroMarshaller("UTC").marshal_row(row, 3)


def test_missing_column_is_named() -> None:
    row = RowChangedEvent(1, 2, _table(ColumnInfo("a", "int")), before={"id": 1}, after=None)
    with pytest.raises(CodecError, match="before image lacks column 'a'"):
        AvroMarshaller("UTC").marshal_row(row, 3)
