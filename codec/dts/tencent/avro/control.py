"""Tencent ``Record``s outside transactions (DDL, CHECKPOINT, HEARTBEAT), and the byte
fragments every Tencent record shares, which ``record`` builds transactions from.

Rare next to rows, so these are plain joins. Tests prove every record equal to fastavro's
``schemaless_writer`` on ``datum``'s datums.
"""

from __future__ import annotations

from tisink.codec.dts import binlog
from tisink.codec.dts.avro.source import SOURCE_VERSION, position_bytes
from tisink.codec.dts.avro.wire import bool_bytes, long_bytes, str_bytes
from tisink.codec.dts.tencent.avro.fields import (
    DDL_EXECUTION_TIME_S,
    INDEX,
    MESSAGE_TYPES,
    SOURCE_TYPE,
    TOTAL,
    VERSION,
    ddl_subject,
    object_name,
)
from tisink.model.events import DDLEvent

NULL = b"\x00"
END = b"\x00"
SECOND = b"\x02"
"""Branch 1 of a ``[null, X]`` union (and the string branch of the image unions)."""

_VERSION = long_bytes(VERSION)
_FILE = str_bytes(binlog.BINLOG_FILE)
TYPE = {name: _VERSION + long_bytes(index) + _FILE for index, name in enumerate(MESSAGE_TYPES)}
"""version, messageType, fileName: what follows the id."""
SOURCE = (
    long_bytes(binlog.SERVER_ID)
    + long_bytes(binlog.THREAD_ID)
    + str_bytes(SOURCE_TYPE)
    + str_bytes(SOURCE_VERSION)
)
"""serverId, threadId, sourceType, sourceVersion."""
NO_TABLE = NULL * 4
"""schemaName, tableName, objectName, columns: all null."""
END_FIELDS = END + long_bytes(TOTAL) + long_bytes(INDEX)
"""Empty tags, then total and index."""


def _optional(text: str | None) -> bytes:
    return NULL if text is None else SECOND + str_bytes(text)


def names(schema: str | None, table: str | None) -> bytes:
    """schemaName, tableName, objectName."""
    name = None if schema is None or table is None else object_name(schema, table)
    return _optional(schema) + _optional(table) + _optional(name)


def _head(seq: int, message_type: str, seconds: int) -> bytes:
    """id, version, messageType, fileName, position, safePosition (its own), timestamp."""
    position = position_bytes(seq)
    return long_bytes(seq) + TYPE[message_type] + position + position + long_bytes(seconds)


def ddl_record(ddl: DDLEvent, seq: int, now_ms: int) -> bytes:
    """messageType DDL with ``sql`` and ``executionTime``."""
    ts = ddl.commit_ts
    subject = ddl_subject(ddl)
    return b"".join(
        (
            _head(seq, "DDL", binlog.timestamp_s(ts)),
            str_bytes(binlog.gtid(ts)),
            NULL,
            SOURCE,
            names(None, None) if subject is None else names(subject.schema, subject.table),
            NULL * 3,
            SECOND + str_bytes(ddl.query),
            SECOND + long_bytes(DDL_EXECUTION_TIME_S),
            NULL * 4,
            long_bytes(now_ms),
            END_FIELDS,
        )
    )


def checkpoint_record(ts: int, seq: int, now_ms: int) -> bytes:
    """messageType CHECKPOINT with ``syncedGtid`` and ``fakeGtid`` true."""
    return b"".join(
        (
            _head(seq, "CHECKPOINT", binlog.timestamp_s(ts)),
            str_bytes(""),
            NULL,
            SOURCE,
            NO_TABLE,
            NULL * 5,
            SECOND + str_bytes(binlog.synced_gtid(ts)),
            SECOND + bool_bytes(True),
            NULL,
            long_bytes(now_ms),
            END_FIELDS,
        )
    )


def heartbeat_record(seq: int, now_ms: int) -> bytes:
    """messageType HEARTBEAT: ``timestamp`` and ``heartbeatTimestamp`` are its own time."""
    seconds = now_ms // 1000
    return b"".join(
        (
            _head(seq, "HEARTBEAT", seconds),
            str_bytes(""),
            NULL,
            SOURCE,
            NO_TABLE,
            NULL * 4,
            SECOND + long_bytes(seconds),
            NULL * 3,
            long_bytes(now_ms),
            END_FIELDS,
        )
    )
