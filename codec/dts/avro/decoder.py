"""DTS Avro records read back as a consumer reads them, for ``tisink verify``.

Each Kafka value is decoded with fastavro and the shipped schema (every byte must belong to the
datum), then checked for the transaction framing a DTS consumer relies on within one partition:
a row sits between a BEGIN and a COMMIT of its own GTID, transactions do not nest, DDL,
CHECKPOINT and HEARTBEAT records come between transactions, and a row's images fit its kind
(an INSERT has only an after image, a DELETE only a before image). Rows
carry their table's key columns, so each DML announces its own schema (version 0: DTS has no
schema versions); CHECKPOINTs are watermarks; BEGIN, COMMIT and HEARTBEAT are counted, not checked.
"""

from __future__ import annotations

from collections.abc import Callable
from io import BytesIO
from typing import Any

from tisink.codec.decoded import (
    DDL,
    DML,
    FRAME_TYPES,
    HEARTBEAT,
    WATERMARK,
    AnnouncedSchema,
    DecodedMessage,
)
from tisink.codec.dts.avro.events import DML_KINDS, ReadRecord, read_alibaba, read_tencent
from tisink.codec.dts.avro.schemas import record_schema
from tisink.codec.errors import MessageDecodeError

_READERS: dict[str, Callable[[dict[str, Any]], ReadRecord]] = {
    "alibaba": read_alibaba,
    "tencent": read_tencent,
}


def read_record(fmt: str, value: bytes) -> dict[str, Any]:
    """The bare datum in ``value``; ValueError when bytes are left over."""
    import fastavro

    buffer = BytesIO(value)
    record = fastavro.schemaless_reader(buffer, record_schema(fmt))
    if buffer.tell() != len(value):
        raise ValueError(f"{len(value) - buffer.tell()} bytes after the record")
    if not isinstance(record, dict):
        raise ValueError(f"expected a record, got {type(record).__name__}")
    return record


class DTSAvroDecoder:
    """Decodes one partition of a ``fmt`` ("alibaba" or "tencent") stream."""

    def __init__(self, fmt: str) -> None:
        if fmt not in _READERS:
            raise MessageDecodeError(f"unknown DTS Avro format {fmt!r}")
        self.fmt = fmt
        self._read = _READERS[fmt]
        self._open_gtid: str | None = None

    def decode(self, key: bytes | None, value: bytes | None) -> list[DecodedMessage]:
        if value is None:
            raise MessageDecodeError(f"null value (a tombstone), not a {self.fmt} DTS record")
        try:
            record = self._read(read_record(self.fmt, value))
        # a consumer sees arbitrary bytes: fastavro raises assorted types on them
        except Exception as err:
            raise MessageDecodeError(
                f"not a {self.fmt} DTS Avro record ({len(value)} bytes): "
                f"{type(err).__name__}: {err}"
            ) from err
        self._frame(record)
        return self._messages(record)

    def _frame(self, record: ReadRecord) -> None:
        """Keep track of the open transaction; MessageDecodeError when the framing breaks."""
        kind, gtid = record.kind, record.gtid
        if kind == "BEGIN":
            if self._open_gtid is not None:
                raise MessageDecodeError(
                    f"BEGIN of {gtid} while transaction {self._open_gtid} has no COMMIT"
                )
            self._open_gtid = gtid
        elif kind in DML_KINDS or kind == "COMMIT":
            if self._open_gtid != gtid:
                where = self._open_gtid or "no transaction"
                raise MessageDecodeError(
                    f"{kind} of {record.database}.{record.table} in transaction {gtid} "
                    f"arrives inside {where}"
                )
            if kind == "COMMIT":
                self._open_gtid = None
        elif self._open_gtid is not None:
            raise MessageDecodeError(
                f"{kind} record arrives inside transaction {self._open_gtid}, which has no COMMIT"
            )

    @staticmethod
    def _messages(record: ReadRecord) -> list[DecodedMessage]:
        kind = record.kind
        if kind in DML_KINDS:
            schema = AnnouncedSchema(record.database, record.table, 0, 0, record.handle_key)
            return [
                DecodedMessage(
                    DML,
                    kind,
                    record.commit_ts,
                    database=record.database,
                    table=record.table,
                    table_schema=schema,
                    data=record.data,
                    old=record.old,
                )
            ]
        if kind == "DDL":
            return [
                DecodedMessage(
                    DDL, kind, record.commit_ts, database=record.database, table=record.table
                )
            ]
        if kind == "CHECKPOINT":
            return [DecodedMessage(WATERMARK, kind, record.commit_ts)]
        if kind in FRAME_TYPES:  # counted with the DML it frames, as the sink counts it
            return [DecodedMessage(DML, kind, record.commit_ts)]
        return [DecodedMessage(HEARTBEAT, kind, record.commit_ts)]
