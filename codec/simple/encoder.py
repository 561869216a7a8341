"""The Simple Protocol encoder (TiCDC ``simple/encoder.go``): marshal, compress, size-check.

Every message is compressed with ``large-message-handle-compression`` whatever its size (spec
1.8). A DML message that does not fit ``max-message-bytes`` (``len(value) + 36``, the key being
empty) takes the ``large-message-handle-option`` fallback of spec 5.3; DDL and BOOTSTRAP
messages have none, and WATERMARKs are never checked. The encoder does no I/O: a claim-check
payload travels on ``Message.claim_check`` for the sink to store.

With ``[integrity] integrity-check-level = "correctness"`` every DML carries ``checksum``: the
row's own (a feed's, a fault's) or the one TiDB (checksum V2) and TiCDC's mounter give it,
``codec/checksum.py``: the column-level CRC32 of each image, ``version`` 2.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from itertools import repeat

from tisink.codec.checksum import row_checksum
from tisink.codec.config import EncoderConfig
from tisink.codec.encoder_base import EncoderBase
from tisink.codec.errors import MessageTooLargeError
from tisink.codec.message import EncodedRows, Message, MessageType
from tisink.codec.simple.json_marshaller import JSONMarshaller
from tisink.codec.simple.marshaller import Marshaller
from tisink.codec.simple.options import SimpleOptions
from tisink.core.framing import RECORD_OVERHEAD
from tisink.model.events import DDLEvent, RowChangedEvent
from tisink.model.table import TableInfo

log = logging.getLogger(__name__)


_DML = MessageType.DML


def marshaller_for(config: EncoderConfig) -> Marshaller:
    """JSON or Avro per ``encoding-format``; Avro is imported only when asked for. The
    architecture (``newarch``) is the protocol options' (README.md)."""
    options = config.options
    newarch = options.newarch if isinstance(options, SimpleOptions) else True
    if config.encoding_format == "avro":
        from tisink.codec.simple.avro import AvroMarshaller

        return AvroMarshaller(config.time_zone, newarch=newarch)
    return JSONMarshaller(config.time_zone, newarch=newarch)


def _without_checksum(row: RowChangedEvent) -> RowChangedEvent:
    """TiCDC writes ``checksum`` only with ``enable-row-checksum``; the row itself is shared."""
    return row.replace(checksum=None)


def _with_checksum(row: RowChangedEvent) -> RowChangedEvent:
    """A row without a checksum of its own gets the one TiDB (checksum V2) and TiCDC would
    give it (``codec/checksum.py``); one the feed or a fault set is kept as it is."""
    return row if row.checksum is not None else row.replace(checksum=row_checksum(row))


class SimpleEncoder(EncoderBase):
    """Implements ``codec.encoder.RowEventEncoder`` for ``protocol=simple``."""

    message_per_row = True

    def _set_up(self, config: EncoderConfig) -> None:
        self._marshaller = marshaller_for(config)
        # The per-row path reads these once here, not through config and marshaller each row.
        self._keep_checksum = config.enable_row_checksum
        self._now_ms = self._clock.now_ms
        self._marshal_row = self._marshaller.marshal_row

    @property
    def marshaller(self) -> Marshaller:
        return self._marshaller

    def encode_row(self, row: RowChangedEvent) -> Message:
        if self._keep_checksum:
            row = _with_checksum(row)
        elif row.checksum is not None:
            row = _without_checksum(row)
        build_ts = self._now_ms()
        value = self._marshal_row(row, build_ts)
        if self._compressing:
            value = self._compress(value)
        if len(value) <= self._limit:
            return Message(value, b"", _DML, 1, row.table.qualified_name)
        return self._large_row(row, build_ts, value)

    def encode_rows(self, rows: Sequence[RowChangedEvent]) -> EncodedRows:
        """One clock reading and one marshaller call for the run; each row still gets its own
        compression, size check and large-message fallback."""
        build_ts = self._now_ms()
        if self._keep_checksum:
            rows = [_with_checksum(row) for row in rows]
        else:
            rows = [row if row.checksum is None else _without_checksum(row) for row in rows]
        values = self._marshaller.marshal_rows(rows, build_ts)
        if self._compressing:
            values = [self._compress(value) for value in values]
        limit = self._limit
        size = sum(map(len, values))
        encoded = EncodedRows(list(zip(repeat(b""), values)), size)
        if size > limit and max(map(len, values)) > limit:
            records = encoded.records
            for index, value in enumerate(values):
                if len(value) > limit:
                    message = self._large_row(rows[index], build_ts, value)
                    records[index] = message.record()
                    encoded.size += message.length() - len(value)
                    if message.claim_check is not None:
                        encoded.claim_checks.append(message.claim_check)
        return encoded

    def _large_row(self, row: RowChangedEvent, build_ts: int, value: bytes) -> Message:
        large = self._large
        large.refuse_if_none(row, len(value) + RECORD_OVERHEAD)
        claim_check: tuple[str, bytes] | None = None
        location: str | None = None
        if large.claim_check:
            location = large.location()
            claim_check = (location, large.payload(value))
        reduced = self._compress(
            self._marshaller.marshal_row(
                row, build_ts, handle_key_only=True, claim_check_location=location
            )
        )
        large.sent_reduced(row, len(value) + RECORD_OVERHEAD, len(reduced) + RECORD_OVERHEAD)
        return Message(
            reduced, b"", MessageType.DML, 1, row.table.qualified_name, claim_check=claim_check
        )

    def encode_ddl(self, ddl: DDLEvent) -> Message:
        """A DDL message (a BOOTSTRAP for ``DDLEvent.bootstrap``), with a null key."""
        value = self._compress(self._marshaller.marshal_ddl(ddl, self._clock.now_ms()))
        kind = MessageType.BOOTSTRAP if ddl.is_bootstrap else MessageType.DDL
        if len(value) > self._limit:
            raise MessageTooLargeError(
                f"{kind.value} {ddl.describe()}: message of {len(value)} bytes exceeds "
                f"max-message-bytes {self._config.max_message_bytes}"
            )
        return Message(value, None, kind, 0, ddl.qualified_name)

    def encode_bootstrap(self, table: TableInfo) -> Message:
        """The BOOTSTRAP of ``table``, framed as TiCDC's DML path sends it: an empty key."""
        message = self.encode_ddl(DDLEvent.bootstrap(table))
        message.key = b""
        return message

    def encode_checkpoint(self, ts: int) -> Message:
        value = self._compress(self._marshaller.marshal_checkpoint(ts, self._clock.now_ms()))
        return Message(value, None, MessageType.WATERMARK)
