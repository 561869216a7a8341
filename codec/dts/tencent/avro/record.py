"""Tencent DTS ``com.tencent.subscribe.avro.Record``s written straight to bytes.

Field order (the rebuilt ``Record.avsc``): id, version, messageType, fileName, position,
safePosition, timestamp, gtid, transactionId, serverId, threadId, sourceType, sourceVersion,
schemaName, tableName, objectName, columns, oldColumns, newColumns, sql, executionTime,
heartbeatTimestamp, syncedGtid, fakeGtid, pkNames, readerTimestamp, tags, total, index. The
names, ``columns``, ``pkNames`` and image writer of a table version are compiled once; a
transaction encodes its binlog fields and ids once for all its records. Records outside
transactions come from ``control``. Tests prove every record equal to fastavro's
``schemaless_writer`` on ``datum``'s datums.
"""

from __future__ import annotations

from collections.abc import Sequence

from tisink.codec.dts.avro.columns import column_writers
from tisink.codec.dts.avro.compiled import ImageWriter, compile_image
from tisink.codec.dts.avro.layout import TableLayout, table_layout
from tisink.codec.dts.avro.source import POSITION_FORMAT, gtid_text, number_text
from tisink.codec.dts.avro.wire import LENGTHS, bool_bytes, id_run, long_bytes, str_bytes
from tisink.codec.dts.tencent.avro.control import (
    END,
    END_FIELDS,
    NO_TABLE,
    NULL,
    SECOND,
    SOURCE,
    TYPE,
    checkpoint_record,
    ddl_record,
    heartbeat_record,
    names,
)
from tisink.codec.dts.tencent.avro.fields import column_fields
from tisink.codec.message import Record
from tisink.codec.renderer_cache import RendererCache
from tisink.model.events import DDLEvent, RowChangedEvent
from tisink.model.table import TableInfo
from tisink.model.tso import LOGICAL_BITS

ARRAY_BRANCH = b"\x04"
"""Branch 2 of ``[null, string, array<...>]``: oldColumns and newColumns."""
_BEGIN, _COMMIT = TYPE["BEGIN"], TYPE["COMMIT"]
_INSERT, _UPDATE, _DELETE = TYPE["INSERT"], TYPE["UPDATE"], TYPE["DELETE"]
_DML_TAIL = NULL * 5
"""sql, executionTime, heartbeatTimestamp, syncedGtid, fakeGtid: null on DML."""
_CONTROL = SOURCE + NO_TABLE + NULL * 8
"""A BEGIN's or COMMIT's fields after transactionId up to readerTimestamp."""
_NO_TXID = NULL
"""``transactionId`` of the records before COMMIT."""


class _TableRecords:
    """The compiled parts of one table version's DML records."""

    __slots__ = ("head", "image", "tail")

    def __init__(self, layout: TableLayout) -> None:
        table = layout.table
        fields = [
            str_bytes(name) + long_bytes(code) + bool_bytes(is_key) + str_bytes(declared)
            for name, code, is_key, declared in column_fields(layout)
        ]
        columns = SECOND + (long_bytes(len(fields)) + b"".join(fields) + END if fields else END)
        self.head = _NO_TXID + SOURCE + names(table.schema, table.table) + columns
        keys = layout.primary_key
        pk_names = (
            SECOND + long_bytes(len(keys)) + b"".join(map(str_bytes, keys)) + END if keys else NULL
        )
        self.tail = _DML_TAIL + pk_names
        writers = column_writers(layout.names, layout.mappings)
        self.image: ImageWriter = compile_image(ARRAY_BRANCH, writers, layout.mappings)


def _compile(table: TableInfo) -> _TableRecords:
    return _TableRecords(table_layout(table))


class TencentRecordWriter:
    """The specialised ``RecordWriter`` of ``protocol=tencent-dts&encoding-format=avro``."""

    def __init__(self) -> None:
        self._tables = RendererCache(_compile, "tencent-dts")
        self._now_ms = -1
        self._reader = b""
        self._second = -1
        self._seconds = b""

    def transaction(
        self, rows: Sequence[RowChangedEvent], first_seq: int, now_ms: int
    ) -> tuple[list[Record], int]:
        first = rows[0]
        ts = first.commit_ts
        heads, rest = id_run(first_seq, len(rows) + 2)
        if now_ms != self._now_ms:  # readerTimestamp: the clock's, shared by many shares
            self._now_ms, self._reader = now_ms, long_bytes(now_ms) + END_FIELDS
        reader = self._reader
        text = POSITION_FORMAT % first_seq
        position = LENGTHS[len(text)] + text
        # safePosition, timestamp, gtid: the same on every record of the transaction
        second = (ts >> LOGICAL_BITS) // 1000  # binlog.timestamp_s(ts)
        if second != self._second:  # timestamp: transactions mostly share a second
            self._second, self._seconds = second, long_bytes(second)
        txn = b"".join((position, self._seconds, gtid_text(ts)))
        control = _CONTROL + reader
        begin = b"".join((heads[0], rest, _BEGIN, position, txn, NULL, control))
        out: list[Record] = [(None, begin)]
        size = len(begin)
        get = self._tables.get
        number = 0
        for row in rows:
            number += 1
            compiled = get(row.table)
            before, after = row.before, row.after
            if before is None:
                kind = _INSERT
                old = NULL
            else:
                kind = _DELETE if after is None else _UPDATE
                old = compiled.image(row, before)
            new = NULL if after is None else compiled.image(row, after)
            text = POSITION_FORMAT % (first_seq + number)
            value = b"".join((
                heads[number], rest, kind, LENGTHS[len(text)], text, txn, compiled.head, old, new,
                compiled.tail, reader,
            ))  # fmt: skip
            out.append((None, value))
            size += len(value)
        text = POSITION_FORMAT % (first_seq + number + 1)
        commit = b"".join((
            heads[-1], rest, _COMMIT, LENGTHS[len(text)], text, txn, SECOND,
            number_text(first.start_ts), control,
        ))  # fmt: skip
        out.append((None, commit))
        return out, size + len(commit)

    def ddl(self, ddl: DDLEvent, seq: int, now_ms: int) -> bytes:
        return ddl_record(ddl, seq, now_ms)

    def checkpoint(self, ts: int, seq: int, now_ms: int) -> bytes:
        return checkpoint_record(ts, seq, now_ms)

    def heartbeat(self, ts: int, seq: int, now_ms: int) -> bytes:
        return heartbeat_record(seq, now_ms)
