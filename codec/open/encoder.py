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

import base64
import logging
import uuid
from collections.abc import Callable, Sequence

import orjson

from tisink.codec.compression import compressor
from tisink.codec.config import EncoderConfig
from tisink.codec.debezium.jsonwriter import dumps
from tisink.codec.errors import MessageTooLargeError
from tisink.codec.message import EncodedRows, Message, MessageType, Record
from tisink.codec.open import batch, ddl
from tisink.codec.open.protocol import OpenOptions
from tisink.codec.open.rows import RENDER_ERRORS, RowRenderer
from tisink.codec.values import zone_for
from tisink.core.clock import Clock, WallClock
from tisink.core.errors import ConfigError
from tisink.model.events import DDLEvent, RowChangedEvent
from tisink.model.table import TableInfo

log = logging.getLogger(__name__)

CLAIM_CHECK_SCHEMES = ("file://",)
RESOLVED_TYPE = 3


class OpenEncoder:
    """Implements ``codec.encoder.RowEventEncoder`` for ``protocol=open``."""

    message_per_row = False

    def __init__(
        self,
        config: EncoderConfig,
        clock: Clock | None = None,
        *,
        uuid_factory: Callable[[], object] = uuid.uuid4,
    ) -> None:
        options = config.options
        if not isinstance(options, OpenOptions):
            raise ConfigError(f"protocol open takes OpenOptions, not {options!r}")
        self._options = options
        self._config = config
        self._clock = clock or WallClock()  # Open Protocol carries no wall-clock time
        self._tz = zone_for(config.time_zone)[1]
        self._compress = compressor(config.large_message_handle_compression)
        self._compressing = config.large_message_handle_compression != "none"
        self._max_bytes = config.max_message_bytes
        self._uuid_factory = uuid_factory
        self._claim_check_prefix = ""
        if config.large_message_handle_option == "claim-check":
            uri = config.claim_check_storage_uri
            if not uri.startswith(CLAIM_CHECK_SCHEMES):
                raise ConfigError(
                    f"claim-check-storage-uri {uri!r} is not supported; "
                    f"use one of {', '.join(CLAIM_CHECK_SCHEMES)}"
                )
            self._claim_check_prefix = uri.rstrip("/") + "/"
        self._renderers: dict[tuple[int, int, str], RowRenderer] = {}
        self._last: RowRenderer | None = None

    def renderer(self, table: TableInfo) -> RowRenderer:
        """The renderer of ``table``'s version, by identity first: a version's rows share one
        TableInfo object; a RENAME (same version, new names) gets its own."""
        last = self._last
        if last is not None and last.table is table:
            return last
        key = (table.table_id, table.version, table.qualified_name)
        renderer = self._renderers.get(key)
        if renderer is None or (renderer.table is not table and renderer.table != table):
            log.debug("open: renderer of %s version %d", table.qualified_name, table.version)
            renderer = self._renderers[key] = RowRenderer(table, self._tz, self._options)
        self._last = renderer
        return renderer

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
        key = tail = b""
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
            if row.physical_table_id != table_id:
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
        option = self._config.large_message_handle_option
        length = len(key) + len(value) + batch.SINGLE_EVENT_OVERHEAD
        if option == "none":
            raise MessageTooLargeError(
                f"{row.describe()}: message of {length} bytes exceeds max-message-bytes "
                f"{self._max_bytes} (large-message-handle-option=none)"
            )
        location = ""
        if option == "claim-check":
            location = f"{self._claim_check_prefix}{self._uuid_factory()}.json"
            claim_checks.append((location, self._claim_check_payload(key, value)))
        reduced_key = renderer.key(row, handle_key_only=True, claim_check=location)
        reduced = self._compress(renderer.render(row, handle_key_only=True))
        reduced_length = len(reduced_key) + len(reduced) + batch.SINGLE_EVENT_OVERHEAD
        if reduced_length > self._max_bytes:
            raise MessageTooLargeError(
                f"{row.describe()}: even the {option} message of {reduced_length} bytes "
                f"exceeds max-message-bytes {self._max_bytes}"
            )
        log.warning(
            "%s: %d-byte event exceeds max-message-bytes %d, sent as %s (%d bytes)",
            row.describe(),
            length,
            self._max_bytes,
            option,
            reduced_length,
        )
        return reduced_key, reduced

    def _claim_check_payload(self, key: bytes, value: bytes) -> bytes:
        """The stored file: the framed event as ticdc's ClaimCheckMessage JSON (``key`` and
        ``value`` base64), or the framed value alone with ``claim-check-raw-value``."""
        framed_key, framed_value = batch.single(key, value)
        if self._config.claim_check_raw_value:
            return framed_value
        return orjson.dumps(
            {
                "key": base64.b64encode(framed_key).decode("ascii"),
                "value": base64.b64encode(framed_value).decode("ascii"),
            }
        )

    def encode_ddl(self, event: DDLEvent) -> Message | None:
        """A DDL event alone in its message; bootstraps are not Open Protocol's."""
        if event.is_bootstrap:
            return None
        schema, table = ddl.ddl_names(event)
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
