"""Alibaba DTS ``com.alibaba.dts.formats.avro.Record``s written straight to bytes.

Field order (the verbatim ``Record.avsc``): version, id, sourceTimestamp, sourcePosition,
safeSourcePosition, sourceTxid, source{sourceType, version}, operation, objectName,
processTimestamps, tags, fields, beforeImages, afterImages, bornTimestamp. What is constant per
table version (operation + objectName, the tag entries but the GTID, ``fields``) is compiled
once; a transaction encodes its own timestamps, txid and GTID once for all its records. Tests
prove every record equal to fastavro's ``schemaless_writer`` on ``alibaba_datum``'s datums.
"""

from __future__ import annotations

from collections.abc import Sequence

from tisink.codec.dts import binlog
from tisink.codec.dts.avro.alibaba_fields import (
    GTID,
    GTID_SET,
    OPERATIONS,
    SOURCE_TYPE_MYSQL,
    VERSION,
    ddl_object_name,
    object_name,
    tag_values,
)
from tisink.codec.dts.avro.columns import ColumnWriter, column_writers, encode_image
from tisink.codec.dts.avro.layout import TableCache, TableLayout, table_layout
from tisink.codec.dts.avro.source import SOURCE_VERSION, position_bytes
from tisink.codec.dts.avro.wire import RecordIds, long_bytes, str_bytes, text_bytes
from tisink.model.events import DDLEvent, RowChangedEvent
from tisink.model.table import TableInfo
from tisink.model.tso import physical_ms

NULL = b"\x00"
END = b"\x00"
STRING_BRANCH = b"\x02"
ARRAY_BRANCH = b"\x04"
"""Branches of ``[null, string, array<...>]`` (fields, beforeImages, afterImages)."""

_VERSION = long_bytes(VERSION)
_SOURCE = long_bytes(SOURCE_TYPE_MYSQL) + str_bytes(SOURCE_VERSION)
_OP = {name: long_bytes(index) for index, name in enumerate(OPERATIONS)}
_NO_TABLE = NULL + NULL
"""objectName and processTimestamps both null: BEGIN, COMMIT, CHECKPOINT, HEARTBEAT."""
_NO_ROW = NULL + NULL + NULL
"""fields, beforeImages and afterImages null."""
_BEGIN = _OP["BEGIN"]
_COMMIT = _OP["COMMIT"]


def _entry(key: str, value: str) -> bytes:
    return str_bytes(key) + str_bytes(value)


def _tags_head(constant: dict[str, str]) -> bytes:
    """The map's count (the constants plus one entry to follow) and the constant entries."""
    return long_bytes(len(constant) + 1) + b"".join(_entry(k, v) for k, v in constant.items())


class _TableRecords:
    """The compiled parts of one table version's DML records."""

    __slots__ = ("delete", "fields", "insert", "tags_head", "update", "writers")

    def __init__(self, layout: TableLayout) -> None:
        table = layout.table
        named = STRING_BRANCH + str_bytes(object_name(table.schema, table.table)) + NULL
        # operation + objectName + processTimestamps (null)
        self.insert, self.update, self.delete = (
            _OP[op] + named for op in ("INSERT", "UPDATE", "DELETE")
        )
        # the GTID entry, different per transaction, comes last: count, constants, GTID, end
        self.tags_head = _tags_head(tag_values(layout.pk_uk_info))
        fields = [
            str_bytes(name) + long_bytes(m.type_code)
            for name, m in zip(layout.names, layout.mappings, strict=True)
        ]
        self.fields = ARRAY_BRANCH + (
            long_bytes(len(fields)) + b"".join(fields) + END if fields else END
        )
        self.writers: list[ColumnWriter] = column_writers(layout.names, layout.mappings)


def _compile(table: TableInfo) -> _TableRecords:
    return _TableRecords(table_layout(table))


_CONTROL_TAGS = _tags_head(tag_values(None))
"""Tags of records without a table, before their GTID (GTID_SET) entry: the count,
thread_id, server_id."""
_HEARTBEAT_TAGS = b"".join(
    (long_bytes(len(tag_values(None))), *(_entry(k, v) for k, v in tag_values(None).items()), END)
)
"""A HEARTBEAT's whole ``tags`` map: thread_id and server_id only."""
_GTID_KEY = str_bytes(GTID)
_GTID_SET_KEY = str_bytes(GTID_SET)


class AlibabaRecordWriter:
    """The specialised ``RecordWriter`` of ``protocol=alibaba-dts``."""

    def __init__(self) -> None:
        self._tables: TableCache[_TableRecords] = TableCache(_compile)
        self._ids = RecordIds()
        self._seconds = RecordIds()  # caches all but the low bits, as for ids

    def transaction(
        self, rows: Sequence[RowChangedEvent], first_seq: int, now_ms: int
    ) -> list[bytes]:
        first = rows[0]
        ts = first.commit_ts
        ids = self._ids
        seconds = self._seconds(binlog.timestamp_s(ts))
        born = long_bytes(physical_ms(ts))
        gtid = _GTID_KEY + text_bytes(binlog.gtid(ts))
        # safeSourcePosition (the BEGIN's), sourceTxid and source: the same on every record
        shared = b"".join(
            (position_bytes(first_seq), text_bytes(binlog.transaction_id(first.start_ts)), _SOURCE)
        )
        control = b"".join((_NO_TABLE, _CONTROL_TAGS, gtid, END, _NO_ROW, born))
        out = [
            b"".join(
                (
                    _VERSION,
                    ids(first_seq),
                    seconds,
                    position_bytes(first_seq),
                    shared,
                    _BEGIN,
                    control,
                )
            )
        ]
        tables = self._tables
        seq = first_seq
        for row in rows:
            seq += 1
            compiled = tables.get(row.table)
            before, after = row.before, row.after
            if before is None:
                head = compiled.insert
                old = NULL
            else:
                head = compiled.delete if after is None else compiled.update
                old = ARRAY_BRANCH + encode_image(row, before, compiled.writers)
            new = (
                NULL if after is None else ARRAY_BRANCH + encode_image(row, after, compiled.writers)
            )
            out.append(
                b"".join(
                    (
                        _VERSION,
                        ids(seq),
                        seconds,
                        position_bytes(seq),
                        shared,
                        head,
                        compiled.tags_head,
                        gtid,
                        END,
                        compiled.fields,
                        old,
                        new,
                        born,
                    )
                )
            )
        seq += 1
        out.append(
            b"".join((_VERSION, ids(seq), seconds, position_bytes(seq), shared, _COMMIT, control))
        )
        return out

    @staticmethod
    def _head(seq: int, seconds: bytes) -> bytes:
        """version, id, sourceTimestamp, sourcePosition."""
        return _VERSION + long_bytes(seq) + seconds + position_bytes(seq)

    def ddl(self, ddl: DDLEvent, seq: int, now_ms: int) -> bytes:
        """operation DDL, the SQL text in afterImages' string branch."""
        ts = ddl.commit_ts
        name = ddl_object_name(ddl)
        txid = binlog.transaction_id(ddl.start_ts) if ddl.start_ts else ""
        return b"".join(
            (
                self._head(seq, long_bytes(binlog.timestamp_s(ts))),
                position_bytes(seq),
                str_bytes(txid),
                _SOURCE,
                _OP["DDL"],
                NULL if name is None else STRING_BRANCH + str_bytes(name),
                NULL,
                _CONTROL_TAGS,
                _GTID_KEY,
                text_bytes(binlog.gtid(ts)),
                END,
                NULL,
                NULL,
                STRING_BRANCH + text_bytes(ddl.query),
                long_bytes(physical_ms(ts)),
            )
        )

    def checkpoint(self, ts: int, seq: int, now_ms: int) -> bytes:
        """operation CHECKPOINT; ``tags.GTID_SET`` holds every transaction up to ``ts``."""
        return b"".join(
            (
                self._head(seq, long_bytes(binlog.timestamp_s(ts))),
                position_bytes(seq),
                str_bytes(""),
                _SOURCE,
                _OP["CHECKPOINT"],
                _NO_TABLE,
                _CONTROL_TAGS,
                _GTID_SET_KEY,
                text_bytes(binlog.synced_gtid(ts)),
                END,
                _NO_ROW,
                long_bytes(physical_ms(ts)),
            )
        )

    def heartbeat(self, ts: int, seq: int, now_ms: int) -> bytes:
        """operation HEARTBEAT: ``sourceTimestamp`` and ``bornTimestamp`` are its own time."""
        return b"".join(
            (
                self._head(seq, long_bytes(now_ms // 1000)),
                position_bytes(seq),
                str_bytes(""),
                _SOURCE,
                _OP["HEARTBEAT"],
                _NO_TABLE,
                _HEARTBEAT_TAGS,
                _NO_ROW,
                long_bytes(now_ms),
            )
        )
