"""Shared pieces of the Debezium codec tests: the goldens' fixtures and TiCDC's write order.

The goldens are JSON literals whose key order is not the emission order. ``write_order``
re-lays a decoded golden in the order TiCDC's JSON writer emits, written down here from
spec/debezium.md sections 1.1-1.3 and 1.8 (not from the encoder), so comparing bytes checks the
encoder's order as well as its content.
"""

from __future__ import annotations

import json
from typing import Any

from tisink.codec.config import EncoderConfig
from tisink.codec.debezium.encoder import DebeziumEncoder
from tisink.codec.debezium.options import DebeziumOptions
from tisink.core.clock import FixedClock
from tisink.model import ColumnInfo, IndexInfo, TableInfo, make_table

NOW_MS = 1_701_326_309_000
"""The goldens' frozen clock (1701326309 s)."""
CLUSTER = "test_cluster"


def encoder(time_zone: str = "UTC", **options: Any) -> DebeziumEncoder:
    options.setdefault("cluster_id", CLUSTER)
    config = EncoderConfig(
        protocol="debezium", time_zone=time_zone, options=DebeziumOptions(**options)
    )
    return DebeziumEncoder(config, FixedClock(NOW_MS))


def tiny_table(nullable: bool) -> TableInfo:
    """``test.table1(tiny tinyint primary key)``; tiflow's fixture flags the column nullable."""
    column = ColumnInfo("tiny", "tinyint", length=4, nullable=nullable)
    return make_table(
        "test", "table1", 1, 1, [column], [IndexInfo("primary", ("tiny",), True, True)]
    )


def compact(value: Any) -> bytes:
    """Compact JSON keeping ``value``'s key order (ASCII-only goldens: same bytes as Go)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


# --- TiCDC's write orders (spec/debezium.md 1.1-1.3, 1.8) ---------------------------------------

_SOURCE = [
    "version",
    "connector",
    "name",
    "ts_ms",
    "snapshot",
    "db",
    "table",
    "server_id",
    "gtid",
    "file",
    "pos",
    "row",
    "thread",
    "query",
    "commit_ts",
    "start_ts",
    "cluster_id",
]
_ROW_PAYLOAD = ("source", "ts_ms", "transaction", "op")
_DDL_PAYLOAD = ("source", "ts_ms", "databaseName", "schemaName", "ddl", "tableChanges")
_DDL_COLUMN = [
    "name",
    "jdbcType",
    "nativeType",
    "comment",
    "defaultValueExpression",
    "enumValues",
    "typeName",
    "typeExpression",
    "charsetName",
    "length",
    "scale",
    "position",
    "optional",
    "autoIncremented",
    "generated",
]
_TABLE = ("defaultCharsetName", "primaryKeyColumnNames", "columns", "comment")
_COLUMN_ENTRY = ("tidb_type", "type", "optional", "name", "version", "parameters", "field")
_DDL_ENTRY = ("field", "optional", "type", "name", "version", "items", "fields")
_SOURCE_NAME = "io.debezium.connector.mysql.Source"


def _schema_order(obj: dict[str, Any], ddl: bool) -> tuple[str, ...]:
    name = obj.get("name", "")
    if name == "io.debezium.connector.mysql.SchemaChangeValue":
        return ("optional", "type", "version", "name", "fields")
    if name.endswith(".Key") or name.endswith("SchemaChangeKey"):
        return ("type", "name", "optional", "version", "fields")
    if name.endswith(".Envelope"):
        return ("type", "optional", "name", "version", "fields")
    if name == _SOURCE_NAME:
        return ("type", "fields", "optional", "name", "field")
    if name == "event.block":
        return ("type", "fields", "optional", "name", "version", "field")
    if name.endswith(".Value"):
        return ("type", "optional", "name", "field", "fields")
    if ddl and "field" not in obj:
        return ("name", "optional", "type", "version", "fields") if name else ("type", "optional")
    if ddl:
        return _DDL_ENTRY
    if obj.get("field") == "snapshot":  # the source's snapshot entry puts default first
        return ("type", "optional", "name", "version", "parameters", "default", "field")
    return (*_COLUMN_ENTRY, "default")


def write_order(value: Any, *, ddl: bool = False, schema: bool = False) -> Any:
    """``value`` (a decoded golden message) with every object's keys in TiCDC's write order;
    column maps keep their (table column) order."""
    if isinstance(value, list):
        return [write_order(v, ddl=ddl, schema=schema) for v in value]
    if not isinstance(value, dict):
        return value
    if schema and not {"type", "field", "name"} & set(value):
        return value  # a parameters object
    if schema:
        name = value.get("name", "")
        if name.startswith("io.debezium.connector.mysql.SchemaChange"):
            ddl = True
        elif name == _SOURCE_NAME:
            ddl = False
        order = _schema_order(value, ddl)
    elif "payload" in value:
        out = {"payload": _payload(value["payload"])}
        if "schema" in value:
            out["schema"] = write_order(value["schema"], schema=True)
        return _checked(value, out)
    elif "connector" in value:
        order = tuple(_SOURCE)
    elif "jdbcType" in value:
        order = tuple(_DDL_COLUMN)
    elif "defaultCharsetName" in value:
        order = _TABLE
    elif "id" in value:
        order = ("type", "id", "table")
    else:
        return value  # a column map or a parameters object: kept as it is
    out = {k: write_order(value[k], ddl=ddl, schema=schema) for k in order if k in value}
    return _checked(value, out)


def _payload(payload: dict[str, Any]) -> dict[str, Any]:
    if "source" not in payload:
        return payload  # a key's column map
    if "ddl" in payload:
        order: tuple[str, ...] = _DDL_PAYLOAD
    else:
        images = ("after", "before") if payload.get("op") == "d" else ("before", "after")
        order = (*_ROW_PAYLOAD, *images)
    return _checked(payload, {k: write_order(payload[k]) for k in order if k in payload})


def _checked(original: dict[str, Any], ordered: dict[str, Any]) -> dict[str, Any]:
    missing = set(original) - set(ordered)
    assert not missing, f"write order table lacks keys {sorted(missing)} of {original}"
    return ordered


# --- the native data-type golden's table and row (testdata/datatype.*.sql) -----------------------

_TEXT = {"charset": "utf8mb4", "collate": "utf8mb4_bin"}
_ABC = ("a", "b", "c")


def foo_table() -> TableInfo:
    """``test.foo`` of TiCDC's ``datatype.ddl.sql`` with the flags TiDB gives it."""
    c = ColumnInfo
    columns = [
        c("pk", "int", length=11, nullable=False),
        *(c(f"col_d_{s}", "date", length=10) for s in ("2023", "1000", "9999", "0000")),
        c("col_dt", "datetime", length=19),
        c("col_dt_fsp_0", "datetime", length=19),
        c("col_dt_fsp_1", "datetime", length=21, decimal=1),
        c("col_dt_fsp_4", "datetime", length=24, decimal=4),
        c("col_dt_fsp_6", "datetime", length=26, decimal=6),
        c("col_dt_0000", "datetime", length=26, decimal=6),
        c("col_t", "time", length=10),
        c("col_t_fsp_0", "time", length=10),
        c("col_t_fsp_1", "time", length=12, decimal=1),
        c("col_t_fsp_4", "time", length=15, decimal=4),
        c("col_t_fsp_6", "time", length=17, decimal=6),
        c("col_t_neg", "time", length=17, decimal=6),
        c("col_ts", "timestamp", length=19),
        c("col_ts_fsp_0", "timestamp", length=19),
        c("col_ts_fsp_1", "timestamp", length=21, decimal=1),
        c("col_ts_fsp_5", "timestamp", length=25, decimal=5),
        c("col_ts_fsp_6", "timestamp", length=26, decimal=6),
        c("col_y", "year", length=4, unsigned=True, zerofill=True),
        *(c(f"col_bit_{n}", "bit", length=n, unsigned=True) for n in (1, 5, 6, 60)),
        c("col_varchar", "varchar", length=100, **_TEXT),
        c("col_char", "char", length=100, **_TEXT),
        c("col_varbinary", "varbinary", length=100),
        c("col_binary", "binary", length=100),
        c("col_blob", "blob", length=65535),
        c("col_decimal", "decimal", length=10, decimal=5),
        c("col_numeric", "decimal", length=10, decimal=5),
        c("col_float", "float", length=12),
        c("col_double", "double", length=22),
        c("col_int", "int", length=11),
        c("col_int_unsigned", "int", length=10, unsigned=True),
        c("col_tinyint", "tinyint", length=4),
        c("col_tinyint_unsigned", "tinyint", length=3, unsigned=True),
        c("col_smallint", "smallint", length=6),
        c("col_smallint_unsigned", "smallint", length=5, unsigned=True),
        c("col_mediumint", "mediumint", length=9),
        c("col_mediumint_unsigned", "mediumint", length=8, unsigned=True),
        c("col_bigint", "bigint", length=20),
        c("col_bigint_unsigned", "bigint", length=20, unsigned=True),
        c("col_enum", "enum", elements=_ABC, **_TEXT),
        c("col_enum_invalid", "enum", elements=_ABC, **_TEXT),
        c("col_set", "set", elements=_ABC, **_TEXT),
        c("col_set_invalid", "set", elements=_ABC, **_TEXT),
        c("col_json", "json"),
    ]
    return make_table("test", "foo", 1, 1, columns, [IndexInfo("primary", ("pk",), True, True)])


_DT = "2023-11-30 12:34:56"
_T = "12:34:56"
FOO_ROW: dict[str, Any] = {
    "pk": 1,
    "col_d_2023": "2023-11-30",
    "col_d_1000": "1000-01-01",
    "col_d_9999": "9999-12-31",
    "col_d_0000": "0000-00-00",
    # what TiDB stores of '... 12:34:56.123456' at each fsp (rounded half up)
    "col_dt": _DT,
    "col_dt_fsp_0": _DT,
    "col_dt_fsp_1": _DT + ".1",
    "col_dt_fsp_4": _DT + ".1235",
    "col_dt_fsp_6": _DT + ".123456",
    "col_dt_0000": "0000-00-00 00:00:00.000000",
    "col_t": _T,
    "col_t_fsp_0": _T,
    "col_t_fsp_1": _T + ".1",
    "col_t_fsp_4": _T + ".1235",
    "col_t_fsp_6": _T + ".123456",
    "col_t_neg": "-" + _T + ".123456",
    "col_ts": _DT,
    "col_ts_fsp_0": _DT,
    "col_ts_fsp_1": _DT + ".1",
    "col_ts_fsp_5": _DT + ".12346",
    "col_ts_fsp_6": _DT + ".123456",
    "col_y": 2023,
    "col_bit_1": 1,
    "col_bit_5": 16,
    "col_bit_6": 16,
    "col_bit_60": 16,
    "col_varchar": "foo",
    "col_char": "foo",
    "col_varbinary": "Zm9v",
    "col_binary": "Zm9v",
    "col_blob": "Zm9v",
    "col_decimal": "12345.12345",
    "col_numeric": "12345.12345",
    "col_float": 12345.12345,
    "col_double": 12345.12345,
    "col_int": -2147483648,
    "col_int_unsigned": 4294967295,
    "col_tinyint": -128,
    "col_tinyint_unsigned": 255,
    "col_smallint": -32768,
    "col_smallint_unsigned": 65535,
    "col_mediumint": -8388608,
    "col_mediumint_unsigned": 16777215,
    "col_bigint": -9223372036854775808,
    "col_bigint_unsigned": 18446744073709551615,
    "col_enum": "a",
    "col_enum_invalid": "",
    "col_set": ["a", "b"],
    "col_set_invalid": [],
    "col_json": ["foo"],
}
