"""Per-table renderers of Debezium row messages, built once per table version.

Everything fixed per table is bytes here: the ``source`` block around its numbers, the
``op``/``before``/``after`` framing of each operation, and both ``schema`` blocks (with
``debezium-disable-schema`` they are empty), so the schema costs a copy, not a serialisation.
A row goes through the generated function of ``codegen`` (one dict and one orjson call per
image and key); ``encode_general`` is the column-by-column path it must equal byte for byte,
used for strings orjson refuses and to name the failing column (spec/debezium.md 1.1-1.4).

The schema lists every column in table order, virtual generated ones included (ticdc writes
them there and then again at the end, a duplicate field Kafka Connect refuses; we keep ticdc's
order without the repeat). With ``newarch=false`` it is tiflow's: the stored columns, then the
virtual ones; and ``commit_ts``/``cluster_id`` are never declared in the source schema.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import orjson

from tisink.codec.debezium import fields, schema
from tisink.codec.debezium.codegen import compile_row_encoder
from tisink.codec.debezium.jsonwriter import dumps
from tisink.codec.debezium.keys import handle_key_columns
from tisink.codec.debezium.names import schema_topic_name
from tisink.codec.debezium.nulls import null_value_for
from tisink.codec.debezium.source import source_template
from tisink.codec.debezium.values import converter_for
from tisink.codec.errors import CodecError
from tisink.codec.values.checks import VALUE_ERRORS, failing_column
from tisink.model.events import Image, RowChangedEvent
from tisink.model.table import ColumnInfo, TableInfo

Column = tuple[str, Callable[[Any], Any], Any]


class RowRenderer:
    """Key and value bytes of one table version's rows under one set of options."""

    __slots__ = (
        "_columns",
        "_fast",
        "_key",
        "_key_columns",
        "_old_value",
        "_start_ts",
        "_templates",
        "table",
    )

    def __init__(
        self,
        table: TableInfo,
        tz: datetime.tzinfo,
        *,
        cluster_id: str,
        with_schema: bool,
        tidb_extension: bool,
        include_start_ts: bool,
        output_old_value: bool,
        newarch: bool = True,
    ) -> None:
        self.table = table
        self._start_ts = include_start_ts
        self._old_value = output_old_value
        self._columns = _columns(table.stored_columns, tz)
        key_columns = handle_key_columns(table)
        self._key_columns = _columns(key_columns, tz)
        stem = schema_topic_name(cluster_id, table.schema, table.table)
        key_schema = value_schema = b""
        if with_schema:
            listed = table.columns
            if not newarch:
                stored = [c for c in listed if not c.virtual]
                listed = (*stored, *(c for c in listed if c.virtual))
            entries = [fields.field_entry_bytes(c, tidb_extension) for c in listed]
            key_schema = schema.key_schema(
                f"{stem}.Key", [fields.field_entry_bytes(c, tidb_extension) for c in key_columns]
            )
            value_schema = schema.envelope_schema(
                f"{stem}.Envelope",
                f"{stem}.Value",
                b",".join(entries),
                schema.source_schema(tidb_extension and newarch, include_start_ts),
            )
        self._key = b'{"payload":%b' + key_schema.replace(b"%", b"%%") + b"}"
        source = source_template(cluster_id, table.schema, table.table, include_start_ts)
        start = b'{"payload":{"source":' + source + b',"ts_ms":%d,"transaction":null,"op":'
        end = b"}" + value_schema.replace(b"%", b"%%") + b"}"
        self._templates = {
            "c": start + b'"c","before":null,"after":%b' + end,
            "d": start + b'"d","after":null,"before":%b' + end,
            "u": start
            + (b'"u","before":%b,"after":%b' if output_old_value else b'"u","after":%b')
            + end,
        }
        stored = [c for c in table.stored_columns if not c.virtual]
        key_names = {c.name for c in key_columns}
        self._fast = compile_row_encoder(
            [(c, converter_for(c), null_value_for(c, tz)) for c in stored],
            [i for i, c in enumerate(stored) if c.name in key_names],
            self._templates,
            self._key,
            output_old_value,
            include_start_ts,
        )

    def encode(self, row: RowChangedEvent, now_ms: int) -> tuple[bytes, bytes]:
        """``(key, value)`` of one row: the generated function, or on a string orjson refuses
        (a lone surrogate) the general path, which repairs it."""
        try:
            return self._fast(row, now_ms)
        except orjson.JSONEncodeError:
            pass
        except VALUE_ERRORS as err:
            raise self._error(row, err) from err
        return self.encode_general(row, now_ms)

    def encode_general(self, row: RowChangedEvent, now_ms: int) -> tuple[bytes, bytes]:
        """``(key, value)`` built column by column through the converters."""
        before, after = row.before, row.after
        try:
            if before is None:
                images: tuple[bytes, ...]
                op, images = "c", (self._image(after),)
                key_image = after
            elif after is None:
                op, images = "d", (self._image(before),)
                key_image = before
            else:
                op, key_image = "u", after
                new = self._image(after)
                images = (self._image(before), new) if self._old_value else (new,)
            key = self._key % dumps(self._render(self._key_columns, key_image))
        except VALUE_ERRORS as err:
            raise self._error(row, err) from err
        numbers: tuple[int, ...] = (row.commit_ts >> 18, row.commit_ts)
        if self._start_ts:
            numbers += (row.start_ts,)
        return key, self._templates[op] % (*numbers, now_ms, *images)

    def _image(self, image: Image | None) -> bytes:
        return dumps(self._render(self._columns, image))

    @staticmethod
    def _render(columns: tuple[Column, ...], image: Any) -> dict[str, Any]:
        return {
            name: null if (v := image[name]) is None else convert(v)
            for name, convert, null in columns
        }

    def _error(self, row: RowChangedEvent, err: Exception) -> CodecError:
        """Name the column that fails, trying one column at a time."""
        where = row.describe()
        by_name = self.table.column_by_name
        columns = [
            (by_name[name], lambda v, convert=convert: dumps(convert(v)))
            for name, convert, _ in self._columns
        ]
        failure = failing_column(where, (row.after, row.before), columns)
        return failure or CodecError(f"{where}: cannot render the row: {err}")


def _columns(columns: tuple[ColumnInfo, ...], tz: datetime.tzinfo) -> tuple[Column, ...]:
    return tuple(
        (c.name, converter_for(c), null_value_for(c, tz)) for c in columns if not c.virtual
    )
