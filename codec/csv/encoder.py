"""The CSV encoder (TiCDC's csv ``batchEncoder`` and ``csvMessage.encode``).

Each row is one line (an UPDATE with ``output-old-value``: a ``D`` line with the old values and
an ``I`` line with the new, both marked as an update): operation, table, schema, the commit ts
with ``include-commit-ts``, ``is-update`` with ``output-old-value`` (tiflow #10542, v8.0),
then the columns in table order (virtual generated columns left out), lines ended by the
terminator. The storage sink puts ``header`` (``output-field-header``, tiflow #12183 and ticdc
#1435, v8.5.3 / the new architecture) at the top of each file.

The classic architecture (``newarch=false``, tiflow ``csvMessage.encodeMeta``) writes
``output-handle-key``'s column after ``is-update``: the row's handle as a string (TiDB's
``IntHandle.String()``, the integer primary key); tisink refuses a table whose handle is not
one integer column (TiDB's ``_tidb_rowid`` and common handles are not in the feed). The new
architecture ignores the setting, as ticdc does.
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Sequence
from typing import Any

from tisink.codec.config import EncoderConfig
from tisink.codec.csv.options import NAME, CSVOptions, check_options
from tisink.codec.csv.values import Field, field_for, meta_field
from tisink.codec.errors import CodecError
from tisink.codec.message import EncodedRows, Message, Record
from tisink.codec.renderer_cache import RendererCache
from tisink.codec.values import zone_for
from tisink.core.errors import ConfigError
from tisink.model.events import DDLEvent, Image, RowChangedEvent, RowOp
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import TableInfo

log = logging.getLogger(__name__)

META_COLUMNS = ("ticdc-meta$operation", "ticdc-meta$table", "ticdc-meta$schema")
COMMIT_TS_COLUMN = "ticdc-meta$commit-ts"
IS_UPDATE_COLUMN = "ticdc-meta$is-update"
_OPERATION = {RowOp.INSERT: "I", RowOp.DELETE: "D", RowOp.UPDATE: "U"}
_INTEGERS = (TypeFamily.INT, TypeFamily.BIGINT)


class _TableRenderer:
    """The column fields of one table version, built once."""

    def __init__(self, table: TableInfo, options: CSVOptions, tz: datetime.tzinfo) -> None:
        self.table = table
        self.columns: list[tuple[str, Field]] = [
            (column.name, field_for(column, options, tz)) for column in table.stored_columns
        ]
        self.names = meta_field(table.table, options), meta_field(table.schema, options)
        self.handle: str | None = None
        for index in table.indexes:  # TiDB's int handle: a one-column integer primary key
            columns = index.columns
            if index.primary and len(columns) == 1 and self._integer(table, columns[0]):
                self.handle = columns[0]

    @staticmethod
    def _integer(table: TableInfo, name: str) -> bool:
        return table.column_by_name[name].family in _INTEGERS


class CSVEncoder:
    """Implements ``codec.encoder.RowEventEncoder`` for ``protocol=csv``: one record per row,
    its value the row's line(s), no key."""

    message_per_row = True

    def __init__(self, config: EncoderConfig) -> None:
        options = config.options_as(CSVOptions)
        try:
            check_options(options)
        except ValueError as err:
            raise ConfigError(f"protocol {NAME}: {err}") from None
        if options.output_handle_key and options.newarch:
            log.warning("csv: output-handle-key is not supported, as in TiCDC; ignored")
        self._handle_key = options.output_handle_key and not options.newarch
        self.options = options
        self._tz = zone_for(config.time_zone)[1]
        self._renderers = RendererCache(self._new_renderer, NAME)

    def _new_renderer(self, table: TableInfo) -> _TableRenderer:
        return _TableRenderer(table, self.options, self._tz)

    def header(self, table: TableInfo) -> bytes:
        """The header line of a file of ``table`` (TiCDC ``encodeHeader``); b"" unless
        ``output-field-header``."""
        options = self.options
        if not options.output_field_header:
            return b""
        names = list(META_COLUMNS)
        if options.include_commit_ts:
            names.append(COMMIT_TS_COLUMN)
        if options.output_old_value:
            names.append(IS_UPDATE_COLUMN)
        names.extend(column.name for column in table.stored_columns)
        return (options.delimiter.join(names) + options.terminator).encode()

    def encode_row(self, row: RowChangedEvent) -> bytes:
        """The line(s) of one row, without the last terminator (the storage sink ends each
        record with it, as it does canal-json's)."""
        renderer = self._renderers.get(row.table)
        options = self.options
        op = row.op
        if op is RowOp.UPDATE and options.output_old_value:
            assert row.before is not None and row.after is not None
            old = self._line(renderer, row, "D", row.before, True)
            new = self._line(renderer, row, "I", row.after, True)
            return (old + options.terminator + new).encode()
        image = row.before if op is RowOp.DELETE else row.after
        assert image is not None
        return self._line(renderer, row, _OPERATION[op], image, op is RowOp.UPDATE).encode()

    def _line(
        self,
        renderer: _TableRenderer,
        row: RowChangedEvent,
        op: str,
        image: Image,
        is_update: bool,
    ) -> str:
        options = self.options
        fields = [meta_field(op, options), *renderer.names]
        if options.include_commit_ts:
            fields.append(str(row.commit_ts))
        if options.output_old_value:
            fields.append("true" if is_update else "false")
        if self._handle_key:
            fields.append(meta_field(self._handle(renderer, row), options))
        null = options.null
        for name, field in renderer.columns:
            value: Any = image.get(name)
            if value is None:
                fields.append(null)
                continue
            try:
                fields.append(field(value))
            except (TypeError, ValueError, KeyError, OverflowError, CodecError) as err:
                raise CodecError(
                    f"table {row.table.qualified_name}: column {name!r}: cannot write "
                    f"{value!r} as CSV: {err}"
                ) from None
        return options.delimiter.join(fields)

    @staticmethod
    def _handle(renderer: _TableRenderer, row: RowChangedEvent) -> str:
        """The row's handle as tiflow prints it (``kv.IntHandle.String()``)."""
        if renderer.handle is None:
            raise CodecError(
                f"table {row.table.qualified_name}: output-handle-key (newarch=false) needs a "
                "one-column integer primary key; tisink does not know TiDB's _tidb_rowid or "
                "common handles"
            )
        image = row.after if row.after is not None else row.before
        assert image is not None
        return str(image.get(renderer.handle))

    def encode_rows(self, rows: Sequence[RowChangedEvent]) -> EncodedRows:
        records: list[Record] = []
        size = 0
        for row in rows:
            line = self.encode_row(row)
            records.append((None, line))
            size += len(line)
        return EncodedRows(records, size)

    def encode_ddl(self, ddl: DDLEvent) -> Message | None:
        """DDLs reach a storage consumer as schema files, not as lines."""
        return None

    def encode_bootstrap(self, table: TableInfo) -> Message | None:
        return None

    def encode_checkpoint(self, ts: int) -> Message | None:
        """The checkpoint is the storage layout's ``metadata`` file, not a line."""
        return None
