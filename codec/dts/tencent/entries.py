"""``Entry`` items and their framing into ``Envelope``s (spec/dts-formats.md 2.1, 2.2).

An item here is one ``Entries.items`` field (tag, length, serialised ``Entry``), so merging
entries into an ``Entries`` is plain concatenation. Proto3 leaves zero values out, but
``Header.messageType`` and ``Data.dataType`` are always written (0 means BEGIN and NIL), as is
``DMLEvent.dmlEventType``; ``Envelope.version`` and ``Header.version`` are always 1.
"""

from __future__ import annotations

from tisink.codec.dts import binlog
from tisink.codec.dts.tencent.enums import (
    ENVELOPE_VERSION,
    HEADER_VERSION,
    MessageType,
    SourceType,
)
from tisink.codec.dts.tencent.wire import LEN, VARINT, field_bytes, field_text, field_varint, tag
from tisink.codec.dts.tencent.wire import varint as _varint

ENVELOPE_OVERHEAD = 20
"""Largest Envelope minus its data: version (2), total and index (6 each), data's tag and
length (6)."""

HEADER_START = field_varint(1, HEADER_VERSION) + field_varint(2, SourceType.MYSQL)
MESSAGE_TYPE = {t: field_varint(3, t) for t in MessageType}
SERVER_FILE = field_varint(5, binlog.SERVER_ID) + field_text(6, binlog.BINLOG_FILE)
POSITION = tag(7, VARINT)
SEQ_ID = tag(11, VARINT)
ENTRY_HEADER = tag(1, LEN)
ENTRY_EVENT = tag(2, LEN)
ITEM = tag(1, LEN)
BEGIN = field_bytes(1, b"")
"""``Event{beginEvent}``: TiDB knows no thread id and names the transaction at COMMIT."""
_ENVELOPE_START = field_varint(1, ENVELOPE_VERSION)
_WHOLE = _ENVELOPE_START + field_varint(2, 1)
_DATA = tag(4, LEN)
WHOLE_DATA = _WHOLE + _DATA
"""An Envelope of one slice, up to the length of its ``data``."""


def timestamp_field(ts: int) -> bytes:
    """``Header.timestamp`` of an event at TSO ``ts``."""
    return seconds_field(binlog.timestamp_s(ts))


def seconds_field(seconds: int) -> bytes:
    """``Header.timestamp`` of an event at Unix time ``seconds``."""
    return field_varint(4, seconds) if seconds else b""


def gtid_field(commit_ts: int) -> bytes:
    return field_text(8, binlog.gtid(commit_ts))


def header(
    message_type: MessageType, time_field: bytes, seq_bytes: bytes, gtid: bytes, names: bytes
) -> bytes:
    """A ``Header``; ``position`` and ``seqId`` are both the seq (see ``binlog``) whose varint
    is ``seq_bytes``; ``names`` the schemaName and tableName fields."""
    return b"".join(
        (
            HEADER_START,
            MESSAGE_TYPE[message_type],
            time_field,
            SERVER_FILE,
            POSITION,
            seq_bytes,
            gtid,
            names,
            SEQ_ID,
            seq_bytes,
        )
    )


def item(header_bytes: bytes, event: bytes) -> bytes:
    """One ``Entries.items`` field holding ``Entry{header, event}``."""
    entry = b"".join(
        (
            ENTRY_HEADER,
            _varint(len(header_bytes)),
            header_bytes,
            ENTRY_EVENT,
            _varint(len(event)),
            event,
        )
    )
    return ITEM + _varint(len(entry)) + entry


def commit_event(start_ts: int) -> bytes:
    return field_bytes(3, field_text(1, binlog.transaction_id(start_ts)))


def dml_event(body: bytes) -> bytes:
    return field_bytes(2, body)


def ddl_event(schema: str, sql: str) -> bytes:
    """``Event{ddlEvent}``; TiDB does not report execution time, so it stays 0."""
    return field_bytes(4, field_text(1, schema) + field_text(2, sql))


def heartbeat_event(epoch_s: int) -> bytes:
    return field_bytes(6, field_varint(1, epoch_s) if epoch_s else b"")


def checkpoint_event(ts: int, seq: int) -> bytes:
    body = (
        field_text(1, binlog.synced_gtid(ts))
        + field_varint(2, 1)
        + field_text(3, binlog.BINLOG_FILE)
        + (field_varint(4, seq) if seq else b"")
    )
    return field_bytes(7, body)


def envelopes(items: list[bytes], limit: int) -> list[bytes]:
    """Kafka values for ``items`` in order: consecutive items merged into one ``Entries`` while
    it stays within ``limit`` bytes; an item over ``limit`` on its own is an ``Entries`` of its
    own, sliced into Envelopes (``total``, ``index`` from 0)."""
    out: list[bytes] = []
    batch: list[bytes] = []
    size = 0
    for one in items:
        length = len(one)
        if size + length <= limit:
            batch.append(one)
            size += length
            continue
        if batch:
            out.append(whole(b"".join(batch)))
        if length > limit:
            out.extend(sliced(one, limit))
            batch, size = [], 0
        else:
            batch, size = [one], length
    if batch:
        out.append(whole(b"".join(batch)))
    return out


def whole(data: bytes) -> bytes:
    """An Envelope holding a complete ``Entries``."""
    return WHOLE_DATA + _varint(len(data)) + data


def sliced(data: bytes, limit: int) -> list[bytes]:
    """Envelopes holding ``data`` cut into slices of at most ``limit`` bytes."""
    total = -(-len(data) // limit)
    head = _ENVELOPE_START + field_varint(2, total)
    out = []
    for index in range(total):
        chunk = data[index * limit : (index + 1) * limit]
        position = field_varint(3, index) if index else b""
        out.append(head + position + _DATA + _varint(len(chunk)) + chunk)
    return out
