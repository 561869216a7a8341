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

from tisink.codec.clock import Clock, WallClock
from tisink.codec.config import EncoderConfig
from tisink.codec.dts.binlog import SyntheticBinlog
from tisink.codec.dts.cadence import CheckpointCadence
from tisink.codec.dts.options import DTSOptions
from tisink.codec.dts.tencent import entries, wire
from tisink.codec.dts.tencent.columns import TableCodec
from tisink.codec.dts.tencent.enums import DMLType, MessageType
from tisink.codec.errors import ConfigError, MessageTooLargeError
from tisink.codec.message import EncodedRows, Message
from tisink.codec.message import MessageType as Kind
from tisink.codec.values import zone_for
from tisink.model.events import DDLEvent, RowChangedEvent
from tisink.model.table import TableInfo
from tisink.model.tso import physical_ms

log = logging.getLogger(__name__)

MAX_RECORD_OVERHEAD = 36
"""Kafka's per-record overhead TiCDC adds to key + value."""
HEADER_RESERVE = 32
"""Room for the ``ps`` Kafka header the sink adds (name, up to 20 digits, varint lengths)."""
MIN_ENTRIES_BYTES = 16
"""Smallest slice worth an Envelope."""
KEY = b""
"""Every record has an empty, non-null key: Tencent's demos read the key as a string."""

_INSERT, _UPDATE, _DELETE = DMLType.INSERT, DMLType.UPDATE, DMLType.DELETE


def _dml_type(row: RowChangedEvent) -> DMLType:
    if row.before is None:
        return _INSERT
    return _DELETE if row.after is None else _UPDATE


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
        self.value_limit = config.max_message_bytes - MAX_RECORD_OVERHEAD - HEADER_RESERVE
        self.entries_limit = self.value_limit - entries.ENVELOPE_OVERHEAD
        if self.entries_limit < MIN_ENTRIES_BYTES:
            least = config.max_message_bytes - self.entries_limit + MIN_ENTRIES_BYTES
            raise ConfigError(
                f"max-message-bytes {config.max_message_bytes} is too small for tencent-dts "
                f"(at least {least})"
            )
        self._checkpoints = CheckpointCadence(options.checkpoint_interval_in_sec, self._clock)
        self._binlog = SyntheticBinlog()
        self._last_second = -1
        self._last_time_field = b""
        self._tables: dict[tuple[int, int, str], TableCodec] = {}

    def table_codec(self, table: TableInfo) -> TableCodec:
        key = (table.table_id, table.version, table.qualified_name)
        codec = self._tables.get(key)
        if codec is None:
            log.debug("tencent-dts: columns of %s version %d", table.qualified_name, table.version)
            codec = self._tables[key] = TableCodec(table, self._tz)
        return codec

    def encode_rows(self, rows: Sequence[RowChangedEvent]) -> EncodedRows:
        """The share's Envelopes; rows of several transactions (a new commit ts or start ts)
        each get their own BEGIN and COMMIT."""
        items: list[bytes] = []
        start = 0
        count = len(rows)
        while start < count:
            first = rows[start]
            end = start + 1
            while end < count and (
                rows[end].commit_ts == first.commit_ts and rows[end].start_ts == first.start_ts
            ):
                end += 1
            self._transaction(rows, start, end, items)
            start = end
        values = entries.envelopes(items, self.entries_limit)
        return EncodedRows([(KEY, value) for value in values], sum(map(len, values)))

    def _transaction(
        self, rows: Sequence[RowChangedEvent], start: int, end: int, items: list[bytes]
    ) -> None:
        runs: list[tuple[TableCodec, DMLType, int, int]] = []
        run_start = start
        table = rows[start].table
        kind = _dml_type(rows[start])
        for index in range(start + 1, end):
            row = rows[index]
            row_kind = _dml_type(row)
            if row.table is not table or row_kind is not kind:
                runs.append((self.table_codec(table), kind, run_start, index))
                run_start, table, kind = index, row.table, row_kind
        runs.append((self.table_codec(table), kind, run_start, end))

        first = rows[start]
        commit_ts = first.commit_ts
        count = len(runs) + 2
        seqs = wire.varint_run(self._binlog.allocate(commit_ts, count), count)
        time_field = self._time_field(commit_ts)
        gtid = entries.gtid_field(commit_ts)
        header = entries.header
        item = entries.item
        items.append(item(header(MessageType.BEGIN, time_field, seqs[0], gtid, b""), entries.BEGIN))
        for number, (codec, run_kind, run_start, run_end) in enumerate(runs, start=1):
            body = codec.dml_body(run_kind, rows, run_start, run_end)
            dml_header = header(MessageType.DML, time_field, seqs[number], gtid, codec.names_field)
            items.append(item(dml_header, entries.dml_event(body)))
        commit_header = header(MessageType.COMMIT, time_field, seqs[-1], gtid, b"")
        items.append(item(commit_header, entries.commit_event(first.start_ts)))

    def _time_field(self, ts: int) -> bytes:
        """``Header.timestamp``, kept for the last second: transactions mostly share one."""
        seconds = physical_ms(ts) // 1000
        if seconds != self._last_second:
            self._last_second = seconds
            self._last_time_field = entries.timestamp_field(ts)
        return self._last_time_field

    def encode_ddl(self, ddl: DDLEvent) -> Message | None:
        """A DDL entry in an Envelope of its own; a bootstrap DDL sends nothing (DTS has no
        bootstraps)."""
        if ddl.is_bootstrap:
            return None
        subject = ddl.table or ddl.pre_table
        schema = subject.schema if subject else ""
        names = wire.field_text(9, schema) + wire.field_text(10, subject.table if subject else "")
        seq = self._binlog.single(ddl.commit_ts)
        header = entries.header(
            MessageType.DDL,
            entries.timestamp_field(ddl.commit_ts),
            wire.varint(seq),
            entries.gtid_field(ddl.commit_ts),
            names,
        )
        item = entries.item(header, entries.ddl_event(schema, ddl.query))
        return self._control(item, Kind.DDL, ddl.qualified_name)

    def encode_bootstrap(self, table: TableInfo) -> Message | None:
        """DTS announces tables through DDL and each DML's ``columns``: no bootstraps."""
        return None

    def encode_checkpoint(self, ts: int) -> Message | None:
        """A CHECKPOINT when the cadence is due by the clock, else None."""
        if not self._checkpoints.due():
            return None
        seq = self._binlog.checkpoint(ts)
        time_field = entries.timestamp_field(ts)
        header = entries.header(MessageType.CHECKPOINT, time_field, wire.varint(seq), b"", b"")
        item = entries.item(header, entries.checkpoint_event(ts, seq))
        return self._control(item, Kind.WATERMARK, "")

    def encode_heartbeat(self, ts: int) -> Message:
        """A HEARTBEAT entry: ``epoch`` and ``Header.timestamp`` are the clock's Unix seconds
        (the unit DTS's Avro form documents), its place the one ``binlog`` keeps after ``ts``."""
        now_s = self._clock.now_ms() // 1000
        seq = self._binlog.heartbeat(ts)
        header = entries.header(
            MessageType.HEARTBEAT, entries.seconds_field(now_s), wire.varint(seq), b"", b""
        )
        item = entries.item(header, entries.heartbeat_event(now_s))
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
