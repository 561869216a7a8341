"""The canal-json encoder (ticdc ``canal.JSONRowEventEncoder``): one message per row, DDL,
TIDB_WATERMARK.

Every message has a null key and is compressed with ``large-message-handle-compression``. A row
message longer than ``max-message-bytes`` (its value plus TiCDC's 36-byte record overhead)
takes the ``large-message-handle-option`` fallback: ``handle-key-only`` sends the handle key's
columns with ``_tidb.onlyHandleKey``, ``claim-check`` stores the full message and sends the
handle key's columns with ``_tidb.claimCheckLocation``; both need ``enable-tidb-extension``, as
TiCDC checks. DDL and WATERMARK messages are not size-checked (TiCDC does not). ``ts`` is the
clock's time, read once per call.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from itertools import islice, repeat

from tisink.codec.canal.ddl import encode_ddl, encode_watermark
from tisink.codec.canal.jsontext import dumps
from tisink.codec.canal.options import NAME, CanalOptions
from tisink.codec.canal.rows import RowRenderer
from tisink.codec.config import EncoderConfig
from tisink.codec.encoder_base import EncoderBase
from tisink.codec.message import EncodedRows, Message, MessageType
from tisink.codec.renderer_cache import RendererCache
from tisink.core.errors import ConfigError
from tisink.core.framing import RECORD_OVERHEAD
from tisink.model.events import DDLEvent, RowChangedEvent
from tisink.model.table import TableInfo

log = logging.getLogger(__name__)


class CanalJSONEncoder(EncoderBase):
    """Implements ``codec.encoder.RowEventEncoder`` for ``protocol=canal-json``."""

    message_per_row = True

    def _set_up(self, config: EncoderConfig) -> None:
        self._options = options = config.options_as(CanalOptions)
        option = config.large_message_handle_option
        if option != "none" and not options.enable_tidb_extension:
            raise ConfigError(
                f"large-message-handle-option={option} with protocol {NAME} needs "
                "enable-tidb-extension=true"
            )
        self._renderers = RendererCache(self._new_renderer, NAME)
        self._now_ms = -1
        self._ts_part = b""
        """``"ts"`` to ``"sqlType":`` for the clock reading ``_now_ms``, kept while the clock
        reads the same millisecond."""

    def _new_renderer(self, table: TableInfo) -> RowRenderer:
        options = self._options
        return RowRenderer(
            table,
            self._tz,
            content_compatible=options.content_compatible,
            only_updated=options.only_updated,
            delete_key_only=options.delete_only_output_handle_key_columns,
            newarch=options.newarch,
        )

    def renderer(self, table: TableInfo) -> RowRenderer:
        """The renderer of ``table``'s version (``RendererCache``)."""
        return self._renderers.get(table)

    def encode_rows(self, rows: Sequence[RowChangedEvent]) -> EncodedRows:
        """One record per row, in order; the ``es``/``ts`` bytes made once per commitTs, each
        run of rows of one table version and commitTs handed to its generated function in one
        call."""
        now_ms = self._clock.now_ms()
        if now_ms != self._now_ms:
            self._now_ms = now_ms
            self._ts_part = b',"ts":%d,"sql":"","sqlType":' % now_ms
        ts_part = self._ts_part
        extension = self._options.enable_tidb_extension
        values: list[bytes] = []
        append = values.append
        count = len(rows)
        done = 0
        last_ts = -1
        mid = tail = b""
        while done < count:
            row = rows[done]
            commit_ts = row.commit_ts
            if commit_ts != last_ts:
                last_ts = commit_ts
                mid = b',"es":%d' % (commit_ts >> 18) + ts_part
                tail = b'],"_tidb":{"commitTs":%d}}' % commit_ts if extension else b"]}"
            table = row.table
            renderer = self.renderer(table)
            run = renderer.run
            if run is not None:
                try:  # returns at the run's end: its rows have their messages
                    run(
                        islice(rows, done, None) if done else rows,
                        mid,
                        tail,
                        append,
                        table,
                        commit_ts,
                    )
                except Exception:  # the first row without a message raised: the general path
                    append(renderer.encode(rows[len(values)], mid, tail))  # names the column
            else:
                append(renderer.encode(row, mid, tail))
            done = len(values)
        if self._compressing:
            values = [self._compress(value) for value in values]
        size = sum(map(len, values))
        encoded = EncodedRows(list(zip(repeat(None), values)), size)
        limit = self._limit
        if size > limit and max(map(len, values)) > limit:
            records = encoded.records
            for index, value in enumerate(values):
                if len(value) > limit:
                    row = rows[index]
                    last_ts = row.commit_ts
                    mid = b',"es":%d' % (last_ts >> 18) + ts_part
                    reduced = self._large_row(row, mid, value, encoded)
                    records[index] = (None, reduced)
                    encoded.size += len(reduced) - len(value)
        return encoded

    def _large_row(
        self, row: RowChangedEvent, mid: bytes, value: bytes, encoded: EncodedRows
    ) -> bytes:
        """The fallback message of a row whose message does not fit (TiCDC's
        ``AppendRowChangedEvent``); a claim-check payload is added to ``encoded``."""
        large = self._large
        length = len(value) + RECORD_OVERHEAD
        large.refuse_if_none(row, length)
        commit = b'],"_tidb":{"commitTs":%d' % row.commit_ts
        if large.claim_check:
            location = large.location()
            encoded.claim_checks.append((location, large.payload(value)))
            tail = commit + b',"claimCheckLocation":' + dumps(location) + b"}}"
        else:
            tail = commit + b',"onlyHandleKey":true}}'
        reduced = self.renderer(row.table).encode(row, mid, tail, key_only=True)
        if self._compressing:
            reduced = self._compress(reduced)
        large.sent_reduced(row, length, len(reduced) + RECORD_OVERHEAD)
        return reduced

    def encode_row(self, row: RowChangedEvent) -> Message:
        """One row as a Message (tests, tools): the same bytes ``encode_rows`` gives."""
        encoded = self.encode_rows([row])
        (record,) = encoded.records
        claim = encoded.claim_checks[0] if encoded.claim_checks else None
        return Message(
            record[1], None, MessageType.DML, 1, row.table.qualified_name, claim_check=claim
        )

    def encode_ddl(self, ddl: DDLEvent) -> Message | None:
        """A DDL message; None for a bootstrap (canal-json has none)."""
        if ddl.is_bootstrap:
            return None
        value = encode_ddl(ddl, self._clock.now_ms(), self._options.enable_tidb_extension)
        return Message(self._compress(value), None, MessageType.DDL, 0, ddl.qualified_name)

    def encode_bootstrap(self, table: TableInfo) -> Message | None:
        """Canal-json has no bootstrap: every row carries its types."""
        return None

    def encode_checkpoint(self, ts: int) -> Message | None:
        """A TIDB_WATERMARK with ``enable-tidb-extension``; nothing otherwise."""
        if not self._options.enable_tidb_extension:
            return None
        value = encode_watermark(ts, self._clock.now_ms())
        return Message(self._compress(value), None, MessageType.WATERMARK)
