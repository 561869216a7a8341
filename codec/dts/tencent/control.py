"""Entries outside transactions: DDL, CHECKPOINT and HEARTBEAT, each an item of its own.

Rare next to rows, so they are built from the generic ``entries`` functions.
"""

from __future__ import annotations

from tisink.codec.dts.tencent import entries
from tisink.codec.dts.tencent.enums import MessageType
from tisink.codec.dts.tencent.wire import field_text, varint
from tisink.model.events import DDLEvent


def ddl_item(ddl: DDLEvent, seq: int) -> bytes:
    """A DDL entry named by the table it is about (after it, else before it)."""
    subject = ddl.table or ddl.pre_table
    schema = subject.schema if subject else ""
    names = field_text(9, schema) + field_text(10, subject.table if subject else "")
    header = entries.header(
        MessageType.DDL,
        entries.timestamp_field(ddl.commit_ts),
        varint(seq),
        entries.gtid_field(ddl.commit_ts),
        names,
    )
    return entries.item(header, entries.ddl_event(schema, ddl.query))


def checkpoint_item(ts: int, seq: int) -> bytes:
    """A CHECKPOINT at ``ts``: no GTID of its own, the synced set in its event."""
    time_field = entries.timestamp_field(ts)
    header = entries.header(MessageType.CHECKPOINT, time_field, varint(seq), b"", b"")
    return entries.item(header, entries.checkpoint_event(ts, seq))


def heartbeat_item(now_s: int, seq: int) -> bytes:
    """A HEARTBEAT: ``epoch`` and ``Header.timestamp`` are the clock's Unix seconds (the unit
    DTS's Avro form documents)."""
    time_field = entries.seconds_field(now_s)
    header = entries.header(MessageType.HEARTBEAT, time_field, varint(seq), b"", b"")
    return entries.item(header, entries.heartbeat_event(now_s))
