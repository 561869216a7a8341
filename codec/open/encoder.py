"""The Open Protocol encoder (ticdc ``open.batchEncoder``): batched rows, DDL, resolved events.

``message_per_row`` is False: the MQ sink routes a transaction first and hands each partition's
share to ``encode_rows``, which packs it into as few batched messages as ``max-batch-size`` and
``max-message-bytes`` allow (ticdc batches a partition's events across transactions; the sink
interface hands one transaction's share at a time, so here a message never spans two).

Values, not keys, are compressed with ``large-message-handle-compression``. An event that alone
exceeds ``max-message-bytes`` (key + value + 60, ticdc's count) takes the large-message
fallback: handle-key-only re-renders it with the handle key columns and ``"ohk":true``;
claim-check stores the framed event (``Message.claim_check``, the sink writes it) and sends its
location in ``ccl`` with the handle key columns. Resolved events are never checked, DDLs neither
(as ticdc). The encoder does no I/O.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from tisink.codec.config import EncoderConfig
from tisink.codec.debezium.jsonwriter import dumps
from tisink.codec.encoder_base import EncoderBase
from tisink.codec.message import EncodedRows, Message, MessageType, Record
from tisink.codec.open import batch, classic, ddl
from tisink.codec.open.options import OpenOptions
from tisink.codec.open.rows import RENDER_ERRORS, RowRenderer
from tisink.codec.renderer_cache import RendererCache
from tisink.model.events import DDLEvent, RowChangedEvent
from tisink.model.table import TableInfo

log = logging.getLogger(__name__)

RESOLVED_TYPE = 3


class OpenEncoder(EncoderBase):
    """Implements ``codec.encoder.RowEventEncoder`` for ``protocol=open``."""

    message_per_row = False

    def _set_up(self, config: EncoderConfig) -> None:
        self._options = config.options_as(OpenOptions)  # Open Protocol carries no wall-clock time
        self._renderers = RendererCache(self._new_renderer, "open")

    def _new_renderer(self, table: TableInfo) -> RowRenderer:
        return RowRenderer(table, self._tz, self._options)

    def renderer(self, table: TableInfo) -> RowRenderer:
        """The renderer of ``table``'s version (``RendererCache``)."""
        return self._renderers.get(table)

    def encode_rows(self, rows: Sequence[RowChangedEvent]) -> EncodedRows:
        """The batched messages of a run of rows (one partition's share of a transaction),
        cut where ``batch.pack`` would cut them, in one pass."""
        claim_checks: list[tuple[str, bytes]] = []
        max_bytes, max_events = self._max_bytes, self._options.max_batch_size
        limit = max_bytes - batch.SINGLE_EVENT_OVERHEAD
        compressing, compress = self._compressing, self._compress
        prefix, small = batch.LENGTH.pack, batch.SMALL_LENGTHS
        records: list[Record] = []
        size = 0
        key_parts: list[bytes] = []
        value_parts: list[bytes] = []
        count = length = 0
        table: TableInfo | None = None
        renderer: RowRenderer | None = None
        write: Callable[[RowChangedEvent], bytes] | None = None
        key = b""
        tail: bytes | None = b""
        key_ts = table_id = -1
        for row in rows:
            if row.table is not table:
                table = row.table
                renderer = self.renderer(table)
                write, tail, table_id, key_ts = (
                    renderer.value,
                    renderer.key_tail,
                    table.table_id,
                    -1,
                )
            assert renderer is not None and write is not None
            if row.physical_table_id != table_id or tail is None:
                key, key_ts = renderer.key(row), -1
            elif row.commit_ts != key_ts:  # a transaction's rows share their key
                key_ts = row.commit_ts
                key = b'{"ts":%d%b' % (key_ts, tail)
            try:
                value = write(row)
            except RENDER_ERRORS:
                value = renderer.render(row)
            if compressing:
                value = compress(value)
            size_key, size_value = len(key), len(value)
            if size_key + size_value > limit:
                key, value = self._large_row(renderer, row, key, value, claim_checks)
                size_key, size_value, key_ts = len(key), len(value), -1
            added = size_key + size_value + 2 * batch.LENGTH_BYTES
            if count and (count >= max_events or length + added > max_bytes):
                records.append((b"".join(key_parts), b"".join(value_parts)))
                size += length - batch.RECORD_OVERHEAD
                count = 0
            if not count:
                key_parts, value_parts = [batch.VERSION_HEAD], []
                length = batch.MESSAGE_OVERHEAD
            key_parts += (small[size_key] if size_key < 4096 else prefix(size_key), key)
            value_parts += (small[size_value] if size_value < 4096 else prefix(size_value), value)
            length += added
            count += 1
        if count:
            records.append((b"".join(key_parts), b"".join(value_parts)))
            size += length - batch.RECORD_OVERHEAD
        return EncodedRows(records, size, claim_checks)

    def _large_row(
        self,
        renderer: RowRenderer,
        row: RowChangedEvent,
        key: bytes,
        value: bytes,
        claim_checks: list[tuple[str, bytes]],
    ) -> tuple[bytes, bytes]:
        large = self._large
        length = len(key) + len(value) + batch.SINGLE_EVENT_OVERHEAD
        large.refuse_if_none(row, length)
        location = ""
        if large.claim_check:
            location = large.location()
            framed_key, framed_value = batch.single(key, value)
            claim_checks.append((location, large.payload(framed_value, framed_key)))
        reduced_key = renderer.key(row, handle_key_only=True, claim_check=location)
        reduced = self._compress(renderer.render(row, handle_key_only=True))
        reduced_length = len(reduced_key) + len(reduced) + batch.SINGLE_EVENT_OVERHEAD
        large.sent_reduced(row, length, reduced_length, "event")
        return reduced_key, reduced

    def encode_ddl(self, event: DDLEvent) -> Message | None:
        """A DDL event alone in its message; bootstraps are not Open Protocol's."""
        if event.is_bootstrap:
            return None
        schema, table = ddl.ddl_names(event)
        if not self._options.newarch:  # tiflow: omitempty names, encoding/json escapes
            key = classic.ddl_key(event.commit_ts, schema, table, ddl.DDL_TYPE)
            value = classic.ddl_value(event.query, ddl.action_type(event))
        else:
            key = b'{"ts":%d,"scm":%b,"tbl":%b,"t":%d}' % (
                event.commit_ts,
                dumps(schema),
                dumps(table),
                ddl.DDL_TYPE,
            )
            value = dumps({"q": event.query, "t": ddl.action_type(event)})
        framed_key, framed_value = batch.single(key, self._compress(value))
        return Message(framed_value, framed_key, MessageType.DDL, 0, event.qualified_name)

    def encode_bootstrap(self, table: TableInfo) -> Message | None:
        """Open Protocol has no bootstrap: every row carries its column types and flags."""
        return None

    def encode_checkpoint(self, ts: int) -> Message:
        """A resolved event ``{"ts":..,"t":3}`` with an empty value, alone in its message."""
        key, value = batch.single(b'{"ts":%d,"t":%d}' % (ts, RESOLVED_TYPE), b"")
        return Message(value, key, MessageType.WATERMARK)
