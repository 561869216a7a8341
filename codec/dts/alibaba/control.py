"""Alibaba ``Record``s outside transactions (DDL, CHECKPOINT, HEARTBEAT), and the byte
fragments every Alibaba record shares, which ``record`` builds transactions from.

Rare next to rows, so these are plain joins. Tests prove every record equal to fastavro's
``schemaless_writer`` on ``datum``'s datums.
"""

from __future__ import annotations

from tisink.codec.dts import binlog
from tisink.codec.dts.alibaba.fields import (
    GTID,
    GTID_SET,
    OPERATIONS,
    SOURCE_TYPE_MYSQL,
    VERSION,
    ddl_object_name,
    tag_values,
)
from tisink.codec.dts.avro.source import SOURCE_VERSION, position_bytes
from tisink.codec.dts.avro.wire import long_bytes, str_bytes, text_bytes
from tisink.model.events import DDLEvent
from tisink.model.tso import physical_ms

NULL = b"\x00"
END = b"\x00"
STRING_BRANCH = b"\x02"
ARRAY_BRANCH = b"\x04"
"""Branches of ``[null, string, array<...>]`` (fields, beforeImages, afterImages)."""

VERSION_FIELD = long_bytes(VERSION)
SOURCE = long_bytes(SOURCE_TYPE_MYSQL) + str_bytes(SOURCE_VERSION)
OP = {name: long_bytes(index) for index, name in enumerate(OPERATIONS)}
NO_TABLE = NULL + NULL
"""objectName and processTimestamps both null: BEGIN, COMMIT, CHECKPOINT, HEARTBEAT."""
NO_ROW = NULL + NULL + NULL
"""fields, beforeImages and afterImages null."""
GTID_KEY = str_bytes(GTID)
_GTID_SET_KEY = str_bytes(GTID_SET)


def _entry(key: str, value: str) -> bytes:
    return str_bytes(key) + str_bytes(value)


def tags_head(constant: dict[str, str]) -> bytes:
    """The map's count (the constants plus one entry to follow) and the constant entries."""
    return long_bytes(len(constant) + 1) + b"".join(_entry(k, v) for k, v in constant.items())


CONTROL_TAGS = tags_head(tag_values(None))
"""Tags of records without a table, before their GTID (GTID_SET) entry: the count,
thread_id, server_id."""
_HEARTBEAT_TAGS = b"".join(
    (long_bytes(len(tag_values(None))), *(_entry(k, v) for k, v in tag_values(None).items()), END)
)
"""A HEARTBEAT's whole ``tags`` map: thread_id and server_id only."""


def _head(seq: int, seconds: int) -> bytes:
    """version, id, sourceTimestamp, sourcePosition, safeSourcePosition (its own)."""
    position = position_bytes(seq)
    return VERSION_FIELD + long_bytes(seq) + long_bytes(seconds) + position + position


def ddl_record(ddl: DDLEvent, seq: int) -> bytes:
    """operation DDL, the SQL text in afterImages' string branch."""
    ts = ddl.commit_ts
    name = ddl_object_name(ddl)
    txid = binlog.transaction_id(ddl.start_ts) if ddl.start_ts else ""
    return b"".join(
        (
            _head(seq, binlog.timestamp_s(ts)),
            str_bytes(txid),
            SOURCE,
            OP["DDL"],
            NULL if name is None else STRING_BRANCH + str_bytes(name),
            NULL,
            CONTROL_TAGS,
            GTID_KEY,
            text_bytes(binlog.gtid(ts)),
            END,
            NULL,
            NULL,
            STRING_BRANCH + text_bytes(ddl.query),
            long_bytes(physical_ms(ts)),
        )
    )


def checkpoint_record(ts: int, seq: int) -> bytes:
    """operation CHECKPOINT; ``tags.GTID_SET`` holds every transaction up to ``ts``."""
    return b"".join(
        (
            _head(seq, binlog.timestamp_s(ts)),
            str_bytes(""),
            SOURCE,
            OP["CHECKPOINT"],
            NO_TABLE,
            CONTROL_TAGS,
            _GTID_SET_KEY,
            text_bytes(binlog.synced_gtid(ts)),
            END,
            NO_ROW,
            long_bytes(physical_ms(ts)),
        )
    )


def heartbeat_record(seq: int, now_ms: int) -> bytes:
    """operation HEARTBEAT: ``sourceTimestamp`` and ``bornTimestamp`` are its own time."""
    return b"".join(
        (
            _head(seq, now_ms // 1000),
            str_bytes(""),
            SOURCE,
            OP["HEARTBEAT"],
            NO_TABLE,
            _HEARTBEAT_TAGS,
            NO_ROW,
            long_bytes(now_ms),
        )
    )
