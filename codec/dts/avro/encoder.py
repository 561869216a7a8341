"""The encoder both DTS Avro formats share: transactions framed by BEGIN and COMMIT, DDL,
CHECKPOINTs on a cadence, each record one bare Avro datum with a null Kafka key.

``message_per_row`` is False: the MQ sink routes a transaction's rows first and hands each
partition its share, which this frames as BEGIN, one record per row, COMMIT, so a consumer of
any one partition sees whole transactions. Positions and ids come from the synthetic binlog
shared with the Protobuf form (``codec.dts.binlog``); a format's ``RecordWriter`` lays out the
bytes.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Protocol

from tisink.codec.config import EncoderConfig
from tisink.codec.dts.binlog import SyntheticBinlog
from tisink.codec.dts.cadence import CheckpointCadence
from tisink.codec.errors import MessageTooLargeError
from tisink.codec.message import EncodedRows, Message, MessageType, Record
from tisink.core.clock import Clock
from tisink.core.errors import ConfigError
from tisink.core.framing import RECORD_OVERHEAD
from tisink.model.events import DDLEvent, RowChangedEvent
from tisink.model.table import TableInfo

log = logging.getLogger(__name__)


def _check_config(config: EncoderConfig) -> None:
    """Refuse the compression DTS Avro cannot honour rather than ignore it."""
    compression = config.large_message_handle_compression
    if compression != "none":  # the option itself is refused by EncoderConfig
        raise ConfigError(
            f"protocol {config.protocol}: large-message-handle-compression={compression} is "
            "not supported; DTS Avro records are plain Avro with no large-message fallback"
        )
    if config.enable_row_checksum:
        log.warning(
            "protocol %s carries no row checksums; integrity-check-level is ignored",
            config.protocol,
        )


def _one_transaction(rows: Sequence[RowChangedEvent], first: RowChangedEvent) -> bool:
    commit_ts, start_ts = first.commit_ts, first.start_ts
    return all(row.commit_ts == commit_ts and row.start_ts == start_ts for row in rows)


def _transactions(rows: Sequence[RowChangedEvent]) -> list[Sequence[RowChangedEvent]]:
    """Runs of consecutive rows with one (startTs, commitTs)."""
    runs: list[Sequence[RowChangedEvent]] = []
    start = 0
    for index in range(1, len(rows) + 1):
        if index == len(rows) or (rows[index].commit_ts, rows[index].start_ts) != (
            rows[start].commit_ts,
            rows[start].start_ts,
        ):
            runs.append(rows[start:index])
            start = index
    return runs


class RecordWriter(Protocol):
    """Lays out one format's records; ``seq`` is the record's ``id`` and binlog position."""

    def transaction(
        self, rows: Sequence[RowChangedEvent], first_seq: int, now_ms: int
    ) -> tuple[list[Record], int]:
        """BEGIN (at ``first_seq``), one record per row, COMMIT: rows of one transaction, as
        Kafka records with a null key, and the size of their values (what the encoder returns,
        so a one-row share costs no second pass)."""
        ...

    def ddl(self, ddl: DDLEvent, seq: int, now_ms: int) -> bytes: ...

    def checkpoint(self, ts: int, seq: int, now_ms: int) -> bytes: ...

    def heartbeat(self, ts: int, seq: int, now_ms: int) -> bytes: ...


class DTSAvroEncoder:
    """Implements ``codec.encoder.RowEventEncoder`` for a DTS Avro ``RecordWriter``."""

    message_per_row = False

    def __init__(self, config: EncoderConfig, clock: Clock, writer: RecordWriter) -> None:
        _check_config(config)
        self._config = config
        self._clock = clock
        self._writer = writer
        self._binlog = SyntheticBinlog()
        self._cadence = CheckpointCadence(config.options.checkpoint_interval_in_sec, clock)
        self._limit = config.max_message_bytes - RECORD_OVERHEAD

    def encode_rows(self, rows: Sequence[RowChangedEvent]) -> EncodedRows:
        """BEGIN, rows, COMMIT per transaction in ``rows`` (normally exactly one)."""
        if not rows:
            return EncodedRows([], 0)
        now_ms = self._clock.now_ms()
        first = rows[0]
        if len(rows) == 1 or _one_transaction(rows, first):
            seq = self._binlog.allocate(first.commit_ts, len(rows) + 2)
            records, size = self._writer.transaction(rows, seq, now_ms)
        else:
            records, size = [], 0
            for run in _transactions(rows):
                seq = self._binlog.allocate(run[0].commit_ts, len(run) + 2)
                more, more_size = self._writer.transaction(run, seq, now_ms)
                records += more
                size += more_size
        if size > self._limit:
            values = [record[1] or b"" for record in records]
            if max(map(len, values)) > self._limit:
                self._too_large(rows, values)
        return EncodedRows(records, size, [])  # [] is cheaper than the field's factory

    def _too_large(self, rows: Sequence[RowChangedEvent], values: list[bytes]) -> None:
        """MessageTooLargeError naming the rows of the share that holds the oversized record."""
        biggest = max(range(len(values)), key=lambda i: len(values[i]))
        described = [row.describe() for row in rows]
        about = ", ".join(described[:3]) + (" ..." if len(described) > 3 else "")
        raise MessageTooLargeError(
            f"a record of {len(values[biggest])} bytes among the records of {about} exceeds "
            f"max-message-bytes {self._config.max_message_bytes}; DTS Avro has no large-message "
            "fallback"
        )

    def encode_ddl(self, ddl: DDLEvent) -> Message | None:
        """The DDL record; None for the synthetic bootstrap DDL (DTS announces no schemas)."""
        if ddl.is_bootstrap:
            return None
        seq = self._binlog.single(ddl.commit_ts)
        value = self._writer.ddl(ddl, seq, self._clock.now_ms())
        if len(value) > self._limit:
            raise MessageTooLargeError(
                f"DDL {ddl.describe()}: record of {len(value)} bytes exceeds max-message-bytes "
                f"{self._config.max_message_bytes}"
            )
        return Message(value, None, MessageType.DDL, 0, ddl.qualified_name)

    def encode_bootstrap(self, table: TableInfo) -> Message | None:
        return None

    def encode_checkpoint(self, ts: int) -> Message | None:
        """A CHECKPOINT record when the cadence is due, else None."""
        if not self._cadence.due():
            return None
        seq = self._binlog.checkpoint(ts)
        value = self._writer.checkpoint(ts, seq, self._clock.now_ms())
        log.debug("CHECKPOINT at ts %d (seq %d)", ts, seq)
        return Message(value, None, MessageType.WATERMARK)

    def encode_heartbeat(self, ts: int) -> Message:
        """A HEARTBEAT record at the clock's time, placed after the rows committed at ``ts``."""
        value = self._writer.heartbeat(ts, self._binlog.heartbeat(ts), self._clock.now_ms())
        return Message(value, None, MessageType.HEARTBEAT)
