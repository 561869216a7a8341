"""The Tencent DTS Protobuf encoder: transactions as BEGIN, DML runs, COMMIT entries, framed
into ``Envelope``s that fit ``max-message-bytes``.

``message_per_row`` is False: the MQ sink routes a transaction first and calls ``encode_rows``
with each partition's share, which becomes BEGIN, one DML entry per run of rows of one table and
one DML type, and COMMIT, merged into as few Envelopes as fit. DDLs are one DDL entry each;
checkpoints are a CHECKPOINT entry alone in its Envelope, sent only when the checkpoint cadence
(``dts-checkpoint-interval-in-sec``, 10 s by the injected clock) is due; heartbeats, which the
MQ sink asks for on idle partitions, a HEARTBEAT entry alone in its Envelope.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from tisink.codec.config import EncoderConfig
from tisink.codec.dts.binlog import SyntheticBinlog
from tisink.codec.dts.cadence import CheckpointCadence
from tisink.codec.dts.options import DTSOptions
from tisink.codec.dts.tencent import control, entries, shares
from tisink.codec.dts.tencent.columns import TableCodec
from tisink.codec.dts.tencent.frames import TransactionFrames
from tisink.codec.errors import MessageTooLargeError
from tisink.codec.message import EncodedRows, Message
from tisink.codec.message import MessageType as Kind
from tisink.codec.renderer_cache import RendererCache
from tisink.codec.values import zone_for
from tisink.core.clock import Clock, WallClock
from tisink.core.errors import ConfigError
from tisink.core.framing import RECORD_OVERHEAD
from tisink.model.events import DDLEvent, RowChangedEvent
from tisink.model.table import TableInfo

log = logging.getLogger(__name__)

HEADER_RESERVE = 32
"""Room for the ``ps`` Kafka header the sink adds (name, up to 20 digits, varint lengths)."""
MIN_ENTRIES_BYTES = 16
"""Smallest slice worth an Envelope."""
KEY = b""
"""Every record has an empty, non-null key: Tencent's demos read the key as a string."""

_INSERT, _UPDATE, _DELETE = shares.INSERT, shares.UPDATE, shares.DELETE


class TencentProtobufEncoder:
    """Implements ``codec.encoder.RowEventEncoder`` for ``protocol=tencent-dts``,
    ``encoding-format=protobuf``."""

    message_per_row = False

    def __init__(self, config: EncoderConfig, clock: Clock | None = None) -> None:
        options = config.options
        if not isinstance(options, DTSOptions):
            options = DTSOptions()
        self._clock = clock or WallClock()
        self._tz = zone_for(config.time_zone)[1]
        self.value_limit = config.max_message_bytes - RECORD_OVERHEAD - HEADER_RESERVE
        self.entries_limit = self.value_limit - entries.ENVELOPE_OVERHEAD
        if self.entries_limit < MIN_ENTRIES_BYTES:
            least = config.max_message_bytes - self.entries_limit + MIN_ENTRIES_BYTES
            raise ConfigError(
                f"max-message-bytes {config.max_message_bytes} is too small for tencent-dts "
                f"(at least {least})"
            )
        self._checkpoints = CheckpointCadence(options.checkpoint_interval_in_sec, self._clock)
        self._binlog = SyntheticBinlog()
        self._frames = TransactionFrames()
        self._tables = RendererCache(self._new_codec, "tencent-dts")

    def _new_codec(self, table: TableInfo) -> TableCodec:
        return TableCodec(table, self._tz)

    def encode_rows(self, rows: Sequence[RowChangedEvent]) -> EncodedRows:
        """The share's Envelopes; rows of several transactions (a new commit ts or start ts)
        each get their own BEGIN and COMMIT."""
        if not rows:
            return EncodedRows([], 0)
        first = rows[0]
        kind = _INSERT if first.before is None else _DELETE if first.after is None else _UPDATE
        if len(rows) > 1 and not shares.one_run(rows, first, kind):
            return self._envelopes(self._transactions(rows))
        codec = self._tables.get(first.table)
        body, size = codec.run(kind, rows)
        ts = first.commit_ts
        seq = self._binlog.allocate(ts, 3)
        run = (codec.names_field, body, size)
        parts = self._frames.single(ts, first.start_ts, seq, run, self.entries_limit)
        if parts is None:
            runs = [(codec.names_field, b"".join(body))]
            return self._envelopes(self._frames.items(ts, first.start_ts, seq, runs))
        value = b"".join(parts)
        return EncodedRows([(KEY, value)], len(value), [])  # [] is cheaper than the factory

    def _envelopes(self, items: list[bytes]) -> EncodedRows:
        values = entries.envelopes(items, self.entries_limit)
        return EncodedRows([(KEY, value) for value in values], sum(map(len, values)))

    def _transactions(self, rows: Sequence[RowChangedEvent]) -> list[bytes]:
        """The items of every transaction in ``rows``: BEGIN, a DML entry per run, COMMIT."""
        items: list[bytes] = []
        for start, end in shares.transactions(rows):
            dml = []
            for table, kind, run_start, run_end in shares.runs(rows, start, end):
                codec = self._tables.get(table)
                body, _size = codec.run(kind, rows[run_start:run_end])
                dml.append((codec.names_field, b"".join(body)))
            first = rows[start]
            seq = self._binlog.allocate(first.commit_ts, len(dml) + 2)
            items += self._frames.items(first.commit_ts, first.start_ts, seq, dml)
        return items

    def encode_ddl(self, ddl: DDLEvent) -> Message | None:
        """A DDL entry in an Envelope of its own; a bootstrap DDL sends nothing (DTS has no
        bootstraps)."""
        if ddl.is_bootstrap:
            return None
        item = control.ddl_item(ddl, self._binlog.single(ddl.commit_ts))
        return self._control(item, Kind.DDL, ddl.qualified_name)

    def encode_bootstrap(self, table: TableInfo) -> Message | None:
        """DTS announces tables through DDL and each DML's ``columns``: no bootstraps."""
        return None

    def encode_checkpoint(self, ts: int) -> Message | None:
        """A CHECKPOINT when the cadence is due by the clock, else None."""
        if not self._checkpoints.due():
            return None
        item = control.checkpoint_item(ts, self._binlog.checkpoint(ts))
        return self._control(item, Kind.WATERMARK, "")

    def encode_heartbeat(self, ts: int) -> Message:
        """A HEARTBEAT entry at the clock's time, placed where ``binlog`` keeps heartbeats after
        the rows at ``ts``."""
        now_s = self._clock.now_ms() // 1000
        item = control.heartbeat_item(now_s, self._binlog.heartbeat(ts))
        return self._control(item, Kind.HEARTBEAT, "")

    def _control(self, item: bytes, kind: Kind, table: str) -> Message:
        """One Envelope: the DDL sink broadcasts a single record, so a control entry cannot be
        sliced; like TiCDC's DDL messages it has no large-message fallback."""
        if len(item) > self.entries_limit:
            raise MessageTooLargeError(
                f"{kind.value} entry{' of ' + table if table else ''} is {len(item)} bytes, "
                f"over the {self.entries_limit} bytes max-message-bytes leaves for it"
            )
        return Message(entries.whole(item), KEY, kind, 0, table)
