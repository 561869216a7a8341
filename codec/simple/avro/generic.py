"""The schema-driven Avro path: fastavro with the official ``message.json``.

``GenericAvroMarshaller`` builds the same native datum ticdc's ``avro.go`` hands to goavro (union
branches selected by name) and lets fastavro write it. It is the reference that the direct
``AvroMarshaller`` is proven byte-equal to, and the baseline of ``bench/bench_simple_avro.py``.
``decode_message`` reads any Simple Avro message back, which is what a consumer does.
"""

from __future__ import annotations

import datetime
import io
import json
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from typing import Any

from fastavro import parse_schema, schemaless_reader, schemaless_writer

from tisink.codec.errors import CodecError
from tisink.codec.simple.avro.tableschema import FLAGGED_TYPES, SCALED_TYPES, raw_default
from tisink.codec.simple.avro.wire import as_int64
from tisink.codec.simple.json_schema import drops_pre_table_schema, schema_columns
from tisink.codec.values import (
    binary_bytes,
    enum_index,
    json_text,
    set_bitmask,
    timestamp_text,
    vector_text,
    zone_for,
)
from tisink.model.events import DDLEvent, DDLType, Image, RowChangedEvent
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo, TableInfo

NAMESPACE = "com.pingcap.simple.avro"
MESSAGE = f"{NAMESPACE}.Message"
Native = Any
"""fastavro's datum form: dicts for records, ``(name, value)`` tuples to pick union branches."""


@lru_cache(maxsize=1)
def schema_json() -> list[dict[str, Any]]:
    """The official schema (ticdc ``pkg/sink/codec/simple/message.json``) as parsed JSON."""
    text = resources.files(__package__).joinpath("message.json").read_text(encoding="utf-8")
    return json.loads(text)


@lru_cache(maxsize=1)
def parsed_schema() -> Any:
    """The official schema parsed by fastavro: a union of the 12 named types."""
    return parse_schema(schema_json())


def decode_message(payload: bytes) -> Native:
    """Decode one Simple Avro message to plain dicts. Raw BIT defaults that are not UTF-8
    decode with surrogate escapes (``"\\x02\\udcaa"`` for the bytes ``02 aa``)."""
    return schemaless_reader(
        io.BytesIO(payload), parsed_schema(), None, handle_unicode_errors="surrogateescape"
    )


def native_value(
    column: ColumnInfo, value: Any, zone: tuple[str, datetime.tzinfo], newarch: bool = True
) -> Native:
    """One ``data``/``old`` map value with its union branch (spec 3.3, ticdc; tiflow, not
    ``newarch``, writes BIT as a long)."""
    if value is None:
        return None
    family = column.family
    if family is TypeFamily.BIGINT and column.unsigned:
        if value < 0:
            raise OverflowError(f"{value} is negative for bigint unsigned")
        return (f"{NAMESPACE}.UnsignedBigint", {"value": as_int64(value)})
    if family in (TypeFamily.INT, TypeFamily.BIGINT, TypeFamily.YEAR):
        return ("long", value)
    if family is TypeFamily.FLOAT:
        return ("float", value)
    if family is TypeFamily.DOUBLE:
        return ("double", value)
    if family is TypeFamily.BINARY:
        return ("bytes", binary_bytes(column, value))
    if family is TypeFamily.TIMESTAMP:
        location, tz = zone
        timestamp = {"location": location, "value": timestamp_text(value, tz)}
        return (f"{NAMESPACE}.Timestamp", timestamp)
    if family is TypeFamily.ENUM:
        return ("long", enum_index(column, value))
    if family is TypeFamily.SET:
        return ("long", set_bitmask(column, value))
    if family is TypeFamily.BIT:
        if value < 0:
            raise OverflowError(f"{value} is negative for bit")
        return ("string", str(value)) if newarch else ("long", as_int64(value))
    if family is TypeFamily.JSON:
        return ("string", json_text(value))
    if family is TypeFamily.VECTOR:
        return ("string", vector_text(value))
    return ("string", value)


def native_image(
    table: TableInfo,
    image: Image,
    zone: tuple[str, datetime.tzinfo],
    handle_key_only: bool,
    newarch: bool = True,
) -> dict[str, Native]:
    handle = set(table.handle_key)
    return {
        c.name: native_value(c, image[c.name], zone, newarch)
        for c in table.stored_columns
        if not handle_key_only or c.name in handle
    }


def native_table_schema(table: TableInfo, newarch: bool = True) -> dict[str, Any]:
    """The ``TableSchema`` record, built field by field from the rules of spec 3.2 (ticdc;
    tiflow, not ``newarch``: columns by id, no TIMESTAMP ``decimal``)."""
    columns = []
    scaled = SCALED_TYPES if newarch else frozenset(("decimal",))
    for c in schema_columns(table, newarch):
        data_type: dict[str, Any] = {
            "mysqlType": c.mysql_type,
            "charset": c.charset,
            "collate": c.collate,
            "length": c.length,
            "decimal": c.decimal if c.mysql_type in scaled else None,
            "elements": list(c.elements) if c.mysql_type in ("enum", "set") else None,
            "unsigned": c.unsigned if c.mysql_type in FLAGGED_TYPES else None,
            "zerofill": c.zerofill if c.mysql_type in FLAGGED_TYPES else None,
        }
        raw = raw_default(c)
        columns.append(
            {
                "name": c.name,
                "dataType": data_type,
                "nullable": c.nullable,
                "default": None if raw is None else raw.decode("utf-8", "surrogateescape"),
            }
        )
    return {
        "database": table.schema,
        "table": table.table,
        "tableID": table.table_id,
        "version": as_int64(table.version),
        "columns": columns,
        "indexes": [
            {
                "name": i.name,
                "unique": i.unique,
                "primary": i.primary,
                "nullable": table.index_nullable(i),
                "columns": list(i.columns),
            }
            for i in table.indexes
        ],
    }


class GenericAvroMarshaller:
    """The Marshaller protocol on fastavro: simple and slow (~27 us per DML), for reference.

    It cannot write a raw BIT default that is not valid UTF-8 (fastavro strings are text).
    """

    def __init__(self, time_zone: str | None, *, newarch: bool = True) -> None:
        self._zone = zone_for(time_zone)
        self._newarch = newarch

    def native_row(
        self,
        row: RowChangedEvent,
        build_ts: int,
        *,
        handle_key_only: bool = False,
        claim_check_location: str | None = None,
    ) -> Native:
        table = row.table
        checksum = row.checksum
        dml: dict[str, Any] = {
            "version": 1,
            "database": table.schema,
            "table": table.table,
            "tableID": row.physical_table_id,
            "type": row.op.value,
            "commitTs": as_int64(row.commit_ts),
            "buildTs": build_ts,
            "schemaVersion": as_int64(table.version),
            "claimCheckLocation": claim_check_location,
            "handleKeyOnly": True if handle_key_only else None,
            "checksum": None
            if checksum is None
            else (
                f"{NAMESPACE}.Checksum",
                {
                    "version": checksum.version,
                    "corrupted": checksum.corrupted,
                    "current": checksum.current,
                    "previous": checksum.previous,
                },
            ),
            "data": None,
            "old": None,
        }
        if row.after is not None:
            dml["data"] = native_image(table, row.after, self._zone, handle_key_only, self._newarch)
        if row.before is not None:
            dml["old"] = native_image(table, row.before, self._zone, handle_key_only, self._newarch)
        return _message("DML", "DML", dml)

    def native_ddl(self, ddl: DDLEvent, build_ts: int) -> Native:
        if ddl.is_bootstrap:
            if ddl.table is None:
                raise CodecError(f"BOOTSTRAP without a table schema: {ddl.describe()}")
            bootstrap = {
                "version": 1,
                "buildTs": build_ts,
                "tableSchema": native_table_schema(ddl.table, self._newarch),
            }
            return _message("BOOTSTRAP", "Bootstrap", bootstrap)
        dropped = ddl.ddl_type is DDLType.CREATE or drops_pre_table_schema(self._newarch)
        pre = None if dropped else ddl.pre_table
        record = {
            "version": 1,
            "type": ddl.ddl_type.value,
            "sql": ddl.query,
            "commitTs": as_int64(ddl.commit_ts),
            "buildTs": build_ts,
            "tableSchema": _optional_schema(ddl.table, self._newarch),
            "preTableSchema": _optional_schema(pre, self._newarch),
        }
        return _message("DDL", "DDL", record)

    def native_checkpoint(self, ts: int, build_ts: int) -> Native:
        watermark = {"version": 1, "commitTs": as_int64(ts), "buildTs": build_ts}
        return _message("WATERMARK", "Watermark", watermark)

    def marshal_row(
        self,
        row: RowChangedEvent,
        build_ts: int,
        *,
        handle_key_only: bool = False,
        claim_check_location: str | None = None,
    ) -> bytes:
        native = self.native_row(
            row,
            build_ts,
            handle_key_only=handle_key_only,
            claim_check_location=claim_check_location,
        )
        return write_native(native)

    def marshal_rows(self, rows: Sequence[RowChangedEvent], build_ts: int) -> list[bytes]:
        return [self.marshal_row(row, build_ts) for row in rows]

    def marshal_ddl(self, ddl: DDLEvent, build_ts: int) -> bytes:
        return write_native(self.native_ddl(ddl, build_ts))

    def marshal_checkpoint(self, ts: int, build_ts: int) -> bytes:
        return write_native(self.native_checkpoint(ts, build_ts))


def write_native(native: Native) -> bytes:
    """fastavro's ``schemaless_writer`` on the official schema."""
    out = io.BytesIO()
    try:
        schemaless_writer(out, parsed_schema(), native)
    except (ValueError, TypeError, UnicodeEncodeError) as err:
        raise CodecError(f"fastavro cannot write the message: {err}") from err
    return out.getvalue()


def _message(message_type: str, record: str, payload: dict[str, Any]) -> Native:
    return (MESSAGE, {"type": message_type, "payload": (f"{NAMESPACE}.{record}", payload)})


def _optional_schema(table: TableInfo | None, newarch: bool = True) -> Native:
    if table is None:
        return None
    return (f"{NAMESPACE}.TableSchema", native_table_schema(table, newarch))
