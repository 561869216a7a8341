"""The Debezium encoder (TiCDC ``debezium.BatchEncoder``): one message per row, DDL, WATERMARK.

Keys and values are both compressed with ``large-message-handle-compression`` (TiCDC compresses
each); there is no large-message fallback in TiCDC's Debezium codec, so a message over
``max-message-bytes`` is an error. Payload ``ts_ms`` is the clock's time at encoding.
"""

from __future__ import annotations

from collections.abc import Sequence

from tisink.codec.config import EncoderConfig
from tisink.codec.debezium.ddl import ddl_names, encode_ddl
from tisink.codec.debezium.options import DebeziumOptions
from tisink.codec.debezium.rows import RowRenderer
from tisink.codec.debezium.source import source_block
from tisink.codec.debezium.watermark import encode_watermark
from tisink.codec.encoder_base import EncoderBase
from tisink.codec.errors import MessageTooLargeError
from tisink.codec.message import EncodedRows, Message, MessageType, Record
from tisink.codec.renderer_cache import RendererCache
from tisink.model.events import DDLEvent, RowChangedEvent
from tisink.model.table import TableInfo


class DebeziumEncoder(EncoderBase):
    """Implements ``codec.encoder.RowEventEncoder`` for ``protocol=debezium``."""

    message_per_row = True

    def _set_up(self, config: EncoderConfig) -> None:
        self._options = config.options_as(DebeziumOptions)
        self._renderers = RendererCache(self._new_renderer, "debezium")

    def _new_renderer(self, table: TableInfo) -> RowRenderer:
        options = self._options
        return RowRenderer(
            table,
            self._tz,
            cluster_id=options.cluster_id,
            with_schema=not options.disable_schema,
            tidb_extension=options.enable_tidb_extension,
            include_start_ts=options.include_start_ts,
            output_old_value=options.output_old_value,
            newarch=options.newarch,
        )

    def renderer(self, table: TableInfo) -> RowRenderer:
        """The renderer of ``table``'s version (``RendererCache``)."""
        return self._renderers.get(table)

    def encode_rows(self, rows: Sequence[RowChangedEvent]) -> EncodedRows:
        """One record per row, in order; one clock reading for the run."""
        now_ms = self._clock.now_ms()
        records: list[Record] = []
        size = 0
        limit = self._limit
        last_table: TableInfo | None = None
        encode = None
        for row in rows:
            if row.table is not last_table:
                last_table = row.table
                encode = self.renderer(last_table).encode
            assert encode is not None
            key, value = encode(row, now_ms)
            if self._compressing:
                key, value = self._compress(key), self._compress(value)
            length = len(key) + len(value)
            if length > limit:
                raise MessageTooLargeError(
                    f"{row.describe()}: message of {length} bytes exceeds max-message-bytes "
                    f"{self._max_bytes} (TiCDC's Debezium codec has no large-message handling)"
                )
            records.append((key, value))
            size += length
        return EncodedRows(records, size)

    def encode_row(self, row: RowChangedEvent) -> Message:
        """One row as a Message (tests, tools): the same bytes ``encode_rows`` gives."""
        (record,) = self.encode_rows([row]).records
        return Message(record[1], record[0], MessageType.DML, 1, row.table.qualified_name)

    def encode_ddl(self, ddl: DDLEvent) -> Message | None:
        """A DDL message, or None for DDLs Debezium has no change type for (and bootstraps)."""
        if ddl.is_bootstrap:
            return None
        options = self._options
        db, table = ddl_names(ddl)
        encoded = encode_ddl(
            ddl,
            source_block(options.cluster_id, db, table, ddl.commit_ts),
            self._clock.now_ms(),
            with_schema=not options.disable_schema,
            # only the new architecture declares commit_ts/cluster_id in the source schema
            tidb_extension=options.enable_tidb_extension and options.newarch,
            newarch=options.newarch,
        )
        if encoded is None:
            return None
        return self._message(encoded, MessageType.DDL, ddl.qualified_name, ddl.describe())

    def encode_bootstrap(self, table: TableInfo) -> Message | None:
        """Debezium has no bootstrap: every row carries its schema."""
        return None

    def encode_checkpoint(self, ts: int) -> Message | None:
        """A WATERMARK (``op`` "m") with ``enable-tidb-extension``; nothing otherwise."""
        options = self._options
        if not options.enable_tidb_extension:
            return None
        encoded = encode_watermark(
            ts,
            options.cluster_id,
            self._clock.now_ms(),
            with_schema=not options.disable_schema,
            tidb_extension=options.newarch,
        )
        return self._message(encoded, MessageType.WATERMARK, "", f"ts {ts}")

    def _message(
        self, encoded: tuple[bytes, bytes], kind: MessageType, table: str, what: str
    ) -> Message:
        key, value = encoded
        if self._compressing:
            key, value = self._compress(key), self._compress(value)
        if len(key) + len(value) > self._limit:
            raise MessageTooLargeError(
                f"{kind.value} {what}: message of {len(key) + len(value)} bytes exceeds "
                f"max-message-bytes {self._max_bytes}"
            )
        return Message(value, key, kind, 0, table)
