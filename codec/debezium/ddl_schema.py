"""The ``schema`` of DDL values: ``io.debezium.connector.mysql.SchemaChangeValue``.

Fixed apart from the source struct (``commit_ts``/``cluster_id`` declared with
``enable-tidb-extension``, never ``start_ts``). Entries here are written ``field, optional,
type`` first, unlike the row envelope: TiCDC's DDL writer uses that order throughout.
"""

from __future__ import annotations

from typing import Any

from tisink.codec.debezium.schema import source_schema


def _field(field: str, optional: bool, kind: str, **more: Any) -> dict[str, Any]:
    return {"field": field, "optional": optional, "type": kind, **more}


def _string_array(name: str) -> dict[str, Any]:
    return _field(name, True, "array", items={"type": "string", "optional": False})


def _struct(name: str, fields: list[dict[str, Any]]) -> dict[str, Any]:
    return {"name": name, "optional": False, "type": "struct", "version": 1, "fields": fields}


_COLUMN = _struct(
    "io.debezium.connector.schema.Column",
    [
        _field("name", False, "string"),
        _field("jdbcType", False, "int32"),
        _field("nativeType", True, "int32"),
        _field("typeName", False, "string"),
        _field("typeExpression", True, "string"),
        _field("charsetName", True, "string"),
        _field("length", True, "int32"),
        _field("scale", True, "int32"),
        _field("position", False, "int32"),
        _field("optional", True, "boolean"),
        _field("autoIncremented", True, "boolean"),
        _field("generated", True, "boolean"),
        _field("comment", True, "string"),
        _field("defaultValueExpression", True, "string"),
        _string_array("enumValues"),
    ],
)
_TABLE = _field(
    "table",
    True,
    "struct",
    name="io.debezium.connector.schema.Table",
    version=1,
    fields=[
        _field("defaultCharsetName", True, "string"),
        _string_array("primaryKeyColumnNames"),
        _field("columns", False, "array", items=_COLUMN),
        _field("comment", True, "string"),
    ],
)
_CHANGE = _struct(
    "io.debezium.connector.schema.Change",
    [_field("type", False, "string"), _field("id", False, "string"), _TABLE],
)


def ddl_value_schema(tidb_extension: bool) -> dict[str, Any]:
    return {
        "optional": False,
        "type": "struct",
        "version": 1,
        "name": "io.debezium.connector.mysql.SchemaChangeValue",
        "fields": [
            source_schema(tidb_extension, include_start_ts=False),
            _field("ts_ms", False, "int64"),
            _field("databaseName", True, "string"),
            _field("schemaName", True, "string"),
            _field("ddl", True, "string"),
            _field("tableChanges", False, "array", items=_CHANGE),
        ],
    }
