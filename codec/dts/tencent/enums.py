"""The enums of ``subscribe.proto`` (spec/dts-formats.md 2.3) and the names verify reports."""

from __future__ import annotations

from enum import IntEnum


class MessageType(IntEnum):
    BEGIN = 0
    COMMIT = 1
    DML = 2
    DDL = 3
    ROLLBACK = 4
    HEARTBEAT = 5
    CHECKPOINT = 6


class DMLType(IntEnum):
    INSERT = 0
    UPDATE = 1
    DELETE = 2


class SourceType(IntEnum):
    ORACLE = 0
    MYSQL = 1
    PGSQL = 2
    MARIADB = 3


class DataType(IntEnum):
    NIL = 0
    INT8 = 1
    INT16 = 2
    INT32 = 3
    INT64 = 4
    UINT8 = 5
    UINT16 = 6
    UINT32 = 7
    UINT64 = 8
    FLOAT32 = 9
    FLOAT64 = 10
    BYTES = 11
    DECIMAL = 12
    STRING = 13
    NA = 14


SV_TYPES = frozenset(
    {
        DataType.INT8,
        DataType.INT16,
        DataType.INT32,
        DataType.INT64,
        DataType.UINT8,
        DataType.UINT16,
        DataType.UINT32,
        DataType.UINT64,
        DataType.FLOAT32,
        DataType.FLOAT64,
        DataType.DECIMAL,
    }
)
"""Types whose value is text in ``sv``; STRING and BYTES use ``bv``."""

ENVELOPE_VERSION = 1
HEADER_VERSION = 1
