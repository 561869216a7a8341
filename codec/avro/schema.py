"""The key and value record schemas of a table version (tiflow ``columns2AvroSchema``,
``value2AvroSchema``, ``key2AvroSchema``), as the exact text TiCDC registers.

The text is Go's ``json.Marshal`` of TiCDC's structs and maps: the record's keys in struct
order (type, name, namespace, fields), a field's keys sorted (default, name, type, as Go writes
a map), HTML-safe escaping. The record is named after the table and its namespace is
``<changefeed namespace>.<database>``, both through ``common.SanitizeName``. A nullable column
is a union with ``null``, ``null`` first unless it has a non-NULL default; a decimal logical
type never gets a default (goavro cannot hold one). The value schema appends the extension
fields with ``enable-tidb-extension`` and, with row checksums, the checksum fields, the
columns then sorted by column id.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tisink.codec.avro import columns
from tisink.codec.avro.options import AvroOptions
from tisink.codec.gojson import go_dumps
from tisink.codec.names import sanitize_name
from tisink.model.table import ColumnInfo, TableInfo

DEFAULT_NAMESPACE = "default"
"""TiCDC's default changefeed namespace (``model.DefaultNamespace``)."""

TIDB_OP = "_tidb_op"
TIDB_COMMIT_TS = "_tidb_commit_ts"
TIDB_PHYSICAL_TIME = "_tidb_commit_physical_time"
TIDB_ROW_CHECKSUM = "_tidb_row_level_checksum"
TIDB_CORRUPTED = "_tidb_corrupted"
TIDB_CHECKSUM_VERSION = "_tidb_checksum_version"

EXTENSION_FIELDS: tuple[dict[str, Any], ...] = (
    {"default": "", "name": TIDB_OP, "type": "string"},
    {"default": 0, "name": TIDB_COMMIT_TS, "type": "long"},
    {"default": 0, "name": TIDB_PHYSICAL_TIME, "type": "long"},
)
CHECKSUM_FIELDS: tuple[dict[str, Any], ...] = (
    {"default": "", "name": TIDB_ROW_CHECKSUM, "type": "string"},
    {"default": False, "name": TIDB_CORRUPTED, "type": "boolean"},
    {"default": 0, "name": TIDB_CHECKSUM_VERSION, "type": "int"},
)


def namespace(changefeed_namespace: str, schema: str) -> str:
    """``getAvroNamespace``: ``<namespace>.<schema>``, or the namespace alone for no schema."""
    ns, db = sanitize_name(changefeed_namespace), sanitize_name(schema)
    return f"{ns}.{db}" if db else ns


def field(column: ColumnInfo, options: AvroOptions) -> dict[str, Any]:
    """One field entry, keys sorted as Go writes a map."""
    kind = columns.avro_type(column, options)
    name = sanitize_name(column.name)
    if columns.precise_decimal(column, options):
        if column.nullable:
            return {"default": None, "name": name, "type": ["null", kind]}
        return {"name": name, "type": kind}
    default = columns.default_json(column, options)
    if column.nullable:
        union = ["null", kind] if default is None else [kind, "null"]
        return {"default": default, "name": name, "type": union}
    if default is None:
        return {"name": name, "type": kind}
    return {"default": default, "name": name, "type": kind}


def record(
    table: TableInfo,
    fields: Sequence[ColumnInfo],
    options: AvroOptions,
    changefeed_namespace: str = DEFAULT_NAMESPACE,
) -> dict[str, Any]:
    """The record schema of ``fields`` of ``table``."""
    return {
        "type": "record",
        "name": sanitize_name(table.table),
        "namespace": namespace(changefeed_namespace, table.schema),
        "fields": [field(column, options) for column in fields],
    }


def value_columns(
    table: TableInfo, row_checksum: bool, newarch: bool = True
) -> tuple[ColumnInfo, ...]:
    """The columns of a value, by column id with row checksums on: ticdc (``newarch``) every
    column, virtual generated ones too (its chunk rows hold them as NULL and
    ``columns2AvroSchema`` does not skip them); tiflow the stored ones (``e.Columns``)."""
    chosen = table.columns if newarch else table.stored_columns
    return tuple(sorted(chosen, key=lambda c: c.id)) if row_checksum else chosen


def key_columns(table: TableInfo, newarch: bool = True) -> tuple[ColumnInfo, ...]:
    """The key's columns in table order: ticdc (``newarch``) the primary key's alone
    (``RowEvent.PrimaryKeyColumn``), tiflow the handle key, the primary key else the first NOT
    NULL unique key (``HandleKeyColInfos``)."""
    if newarch:
        chosen = {name for index in table.indexes if index.primary for name in index.columns}
    else:
        chosen = set(table.handle_key)
    return tuple(c for c in table.stored_columns if c.name in chosen)


def value_schema(
    table: TableInfo,
    options: AvroOptions,
    row_checksum: bool = False,
    changefeed_namespace: str = DEFAULT_NAMESPACE,
) -> str:
    """The value schema text TiCDC registers under ``<topic>-value``."""
    top = record(
        table, value_columns(table, row_checksum, options.newarch), options, changefeed_namespace
    )
    if options.enable_tidb_extension:
        top["fields"] += EXTENSION_FIELDS
        if row_checksum:
            top["fields"] += CHECKSUM_FIELDS
    return go_dumps(top).decode()


def key_schema(
    table: TableInfo, options: AvroOptions, changefeed_namespace: str = DEFAULT_NAMESPACE
) -> str:
    """The key schema text TiCDC registers under ``<topic>-key``."""
    keys = key_columns(table, options.newarch)
    return go_dumps(record(table, keys, options, changefeed_namespace)).decode()
