"""Delivered ``(key, value)`` records seen as Messages again, for fake producers in tests."""

from __future__ import annotations

import orjson

from tisink.codec.message import Message, MessageType, Record


def as_message(record: Record) -> Message:
    """The record as a Message, its type read back from the debug or Simple JSON value."""
    key, value = record
    kind = orjson.loads(value)["type"]
    if kind in ("INSERT", "UPDATE", "DELETE"):
        return Message(value, key, MessageType.DML, 1)
    if kind in ("BOOTSTRAP", "WATERMARK"):
        return Message(value, key, MessageType(kind))
    return Message(value, key, MessageType.DDL)
