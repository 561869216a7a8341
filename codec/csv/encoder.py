"""The CSV encoder (TiCDC's csv ``batchEncoder`` and ``csvMessage.encode``).

Each row is one line (an UPDATE with ``output-old-value``: a ``D`` line with the old values and
an ``I`` line with the new, both marked as an update): operation, table, schema, the commit ts
with ``include-commit-ts``, ``is-update`` with ``output-old-value``, then the columns in table
order (virtual generated columns left out), lines ended by the terminator. The storage sink
puts ``header`` (``output-field-header``) at the top of each file.
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
from tisink.model.table import TableInfo

log = logging.getLogger(__name__)

META_COLUMNS = ("ticdc-meta$operation", "ticdc-meta$table", "ticdc-meta$schema")
COMMIT_TS_COLUMN = "ticdc-meta$commit-ts"
IS_UPDATE_COLUMN = "ticdc-meta$is-update"
_OPERATION = {RowOp.INSERT: "I", RowOp.DELETE: "D", RowOp.UPDATE: "U"}


class _TableRenderer:
    """The column fields of one table version, built once."""

    def __init__(self, table: TableInfo, options: CSVOptions, tz: datetime.tzinfo) -> None:
        self.table = table
        self.columns: list[tuple[str, Field]] = [
            (column.name, field_for(column, options, tz)) for column in table.stored_columns
        ]
        self.names = meta_field(table.table, options), meta_field(table.schema, options)


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
        if options.output_handle_key:
            log.warning("csv: output-handle-key is not supported, as in TiCDC; ignored")
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
