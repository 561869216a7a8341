"""Tencent DTS ``com.tencent.subscribe.avro.Record``s written straight to bytes.

Field order (the rebuilt ``Record.avsc``): id, version, messageType, fileName, position,
safePosition, timestamp, gtid, transactionId, serverId, threadId, sourceType, sourceVersion,
schemaName, tableName, objectName, columns, oldColumns, newColumns, sql, executionTime,
heartbeatTimestamp, syncedGtid, fakeGtid, pkNames, readerTimestamp, tags, total, index. The
names, ``columns`` and ``pkNames`` of a table version are compiled once; a transaction encodes
its binlog fields once for all its records. Tests prove every record equal to fastavro's
``schemaless_writer`` on ``tencent_datum``'s datums.
"""

from __future__ import annotations

from collections.abc import Sequence

from tisink.codec.dts import binlog
from tisink.codec.dts.avro.columns import ColumnWriter, column_writers, encode_image
from tisink.codec.dts.avro.layout import TableCache, TableLayout, table_layout
from tisink.codec.dts.avro.source import SOURCE_VERSION, position_bytes
from tisink.codec.dts.avro.tencent_fields import (
    DDL_EXECUTION_TIME_S,
    INDEX,
    MESSAGE_TYPES,
    SOURCE_TYPE,
    TOTAL,
    VERSION,
    column_fields,
    ddl_subject,
    object_name,
)
from tisink.codec.dts.avro.wire import RecordIds, bool_bytes, long_bytes, str_bytes, text_bytes
from tisink.model.events import DDLEvent, RowChangedEvent
from tisink.model.table import TableInfo

NULL = b"\x00"
END = b"\x00"
SECOND = b"\x02"
"""Branch 1 of a ``[null, X]`` union (and the string branch of the image unions)."""
ARRAY_BRANCH = b"\x04"
"""Branch 2 of ``[null, string, array<...>]``: oldColumns and newColumns."""

_VERSION = long_bytes(VERSION)
_FILE = str_bytes(binlog.BINLOG_FILE)
_TYPE = {name: _VERSION + long_bytes(index) + _FILE for index, name in enumerate(MESSAGE_TYPES)}
"""version, messageType, fileName: what follows the id."""
_BEGIN, _COMMIT = _TYPE["BEGIN"], _TYPE["COMMIT"]
_INSERT, _UPDATE, _DELETE = _TYPE["INSERT"], _TYPE["UPDATE"], _TYPE["DELETE"]
_SOURCE = (
    long_bytes(binlog.SERVER_ID)
    + long_bytes(binlog.THREAD_ID)
    + str_bytes(SOURCE_TYPE)
    + str_bytes(SOURCE_VERSION)
)
"""serverId, threadId, sourceType, sourceVersion."""
_NO_TABLE = NULL * 4
"""schemaName, tableName, objectName, columns: all null."""
_DML_TAIL = NULL * 5
"""sql, executionTime, heartbeatTimestamp, syncedGtid, fakeGtid: null on DML."""
_END_FIELDS = END + long_bytes(TOTAL) + long_bytes(INDEX)
"""Empty tags, then total and index."""


def _optional(text: str | None) -> bytes:
    return NULL if text is None else SECOND + str_bytes(text)


def _names(schema: str | None, table: str | None) -> bytes:
    """schemaName, tableName, objectName."""
    name = None if schema is None or table is None else object_name(schema, table)
    return _optional(schema) + _optional(table) + _optional(name)


class _TableRecords:
    """The compiled parts of one table version's DML records."""

    __slots__ = ("head", "tail", "writers")

    def __init__(self, layout: TableLayout) -> None:
        table = layout.table
        fields = [
            str_bytes(name) + long_bytes(code) + bool_bytes(is_key) + str_bytes(declared)
            for name, code, is_key, declared in column_fields(layout)
        ]
        columns = SECOND + (long_bytes(len(fields)) + b"".join(fields) + END if fields else END)
        self.head = _names(table.schema, table.table) + columns
        keys = layout.primary_key
        pk_names = (
            SECOND + long_bytes(len(keys)) + b"".join(map(str_bytes, keys)) + END if keys else NULL
        )
        self.tail = _DML_TAIL + pk_names
        self.writers: list[ColumnWriter] = column_writers(layout.names, layout.mappings)


def _compile(table: TableInfo) -> _TableRecords:
    return _TableRecords(table_layout(table))


class TencentRecordWriter:
    """The specialised ``RecordWriter`` of ``protocol=tencent-dts&encoding-format=avro``."""

    def __init__(self) -> None:
        self._tables: TableCache[_TableRecords] = TableCache(_compile)
        self._ids = RecordIds()

    def transaction(
        self, rows: Sequence[RowChangedEvent], first_seq: int, now_ms: int
    ) -> list[bytes]:
        first = rows[0]
        ts = first.commit_ts
        ids = self._ids
        # safePosition, timestamp, gtid: the same on every record of the transaction
        txn = position_bytes(first_seq) + long_bytes(binlog.timestamp_s(ts))
        txn += text_bytes(binlog.gtid(ts))
        reader = long_bytes(now_ms) + _END_FIELDS
        control = _SOURCE + _NO_TABLE + NULL * 8 + reader
        out = [ids(first_seq) + _BEGIN + position_bytes(first_seq) + txn + NULL + control]
        tables = self._tables
        seq = first_seq
        shared = txn + NULL + _SOURCE
        for row in rows:
            seq += 1
            compiled = tables.get(row.table)
            before, after = row.before, row.after
            if before is None:
                head = _INSERT
                old = NULL
            else:
                head = _DELETE if after is None else _UPDATE
                old = ARRAY_BRANCH + encode_image(row, before, compiled.writers)
            new = (
                NULL if after is None else ARRAY_BRANCH + encode_image(row, after, compiled.writers)
            )
            out.append(
                b"".join(
                    (
                        ids(seq),
                        head,
                        position_bytes(seq),
                        shared,
                        compiled.head,
                        old,
                        new,
                        compiled.tail,
                        reader,
                    )
                )
            )
        seq += 1
        txid = SECOND + text_bytes(binlog.transaction_id(first.start_ts))
        out.append(ids(seq) + _COMMIT + position_bytes(seq) + txn + txid + control)
        return out

    @staticmethod
    def _head(seq: int, message_type: str) -> bytes:
        """id, version, messageType, fileName, position."""
        return long_bytes(seq) + _TYPE[message_type] + position_bytes(seq)

    def ddl(self, ddl: DDLEvent, seq: int, now_ms: int) -> bytes:
        """messageType DDL with ``sql`` and ``executionTime``."""
        ts = ddl.commit_ts
        subject = ddl_subject(ddl)
        names = _names(None, None) if subject is None else _names(subject.schema, subject.table)
        return b"".join(
            (
                self._head(seq, "DDL"),
                position_bytes(seq),
                long_bytes(binlog.timestamp_s(ts)),
                str_bytes(binlog.gtid(ts)),
                NULL,
                _SOURCE,
                names,
                NULL * 3,
                SECOND + str_bytes(ddl.query),
                SECOND + long_bytes(DDL_EXECUTION_TIME_S),
                NULL * 4,
                long_bytes(now_ms),
                _END_FIELDS,
            )
        )

    def checkpoint(self, ts: int, seq: int, now_ms: int) -> bytes:
        """messageType CHECKPOINT with ``syncedGtid`` and ``fakeGtid`` true."""
        return b"".join(
            (
                self._head(seq, "CHECKPOINT"),
                position_bytes(seq),
                long_bytes(binlog.timestamp_s(ts)),
                str_bytes(""),
                NULL,
                _SOURCE,
                _NO_TABLE,
                NULL * 5,
                SECOND + str_bytes(binlog.synced_gtid(ts)),
                SECOND + bool_bytes(True),
                NULL,
                long_bytes(now_ms),
                _END_FIELDS,
            )
        )

    def heartbeat(self, ts: int, seq: int, now_ms: int) -> bytes:
        """messageType HEARTBEAT: ``timestamp`` and ``heartbeatTimestamp`` are its own time."""
        seconds = long_bytes(now_ms // 1000)
        return b"".join(
            (
                self._head(seq, "HEARTBEAT"),
                position_bytes(seq),
                seconds,
                str_bytes(""),
                NULL,
                _SOURCE,
                _NO_TABLE,
                NULL * 4,
                SECOND + seconds,
                NULL * 3,
                long_bytes(now_ms),
                _END_FIELDS,
            )
        )
