"""Alibaba DTS ``com.alibaba.dts.formats.avro.Record``s written straight to bytes.

Field order (the verbatim ``Record.avsc``): version, id, sourceTimestamp, sourcePosition,
safeSourcePosition, sourceTxid, source{sourceType, version}, operation, objectName,
processTimestamps, tags, fields, beforeImages, afterImages, bornTimestamp. What is constant per
table version (operation + objectName, the tag entries but the GTID, ``fields``, the image
writer) is compiled once; a transaction encodes its own timestamps, ids, txid and GTID once for
all its records. Records outside transactions come from ``control``. Tests prove every
record equal to fastavro's ``schemaless_writer`` on ``datum``'s datums.
"""

from __future__ import annotations

from collections.abc import Sequence

from tisink.codec.dts.alibaba.control import (
    ARRAY_BRANCH,
    CONTROL_TAGS,
    END,
    GTID_KEY,
    NO_ROW,
    NO_TABLE,
    NULL,
    OP,
    SOURCE,
    STRING_BRANCH,
    VERSION_FIELD,
    checkpoint_record,
    ddl_record,
    heartbeat_record,
    tags_head,
)
from tisink.codec.dts.alibaba.fields import object_name, tag_values
from tisink.codec.dts.avro.columns import column_writers
from tisink.codec.dts.avro.compiled import ImageWriter, compile_image
from tisink.codec.dts.avro.layout import TableLayout, table_layout
from tisink.codec.dts.avro.source import POSITION_FORMAT, gtid_text, number_text
from tisink.codec.dts.avro.wire import LENGTHS, id_run, long_bytes, str_bytes, time_bytes
from tisink.codec.message import Record
from tisink.codec.renderer_cache import RendererCache
from tisink.model.events import DDLEvent, RowChangedEvent
from tisink.model.table import TableInfo
from tisink.model.tso import LOGICAL_BITS

_BEGIN = OP["BEGIN"]
_COMMIT = OP["COMMIT"]


class _TableRecords:
    """The compiled parts of one table version's DML records."""

    __slots__ = ("delete", "fields", "image", "insert", "update")

    def __init__(self, layout: TableLayout) -> None:
        table = layout.table
        named = STRING_BRANCH + str_bytes(object_name(table.schema, table.table)) + NULL
        # the GTID entry, different per transaction, comes last: count, constants, GTID, end
        tags = tags_head(tag_values(layout.pk_uk_info))
        # operation, objectName, processTimestamps (null), tags up to the GTID
        self.insert, self.update, self.delete = (
            OP[op] + named + tags + GTID_KEY for op in ("INSERT", "UPDATE", "DELETE")
        )
        fields = [
            str_bytes(name) + long_bytes(m.type_code)
            for name, m in zip(layout.names, layout.mappings, strict=True)
        ]
        # the tags' end, then fields
        self.fields = (
            END
            + ARRAY_BRANCH
            + (long_bytes(len(fields)) + b"".join(fields) + END if fields else END)
        )
        writers = column_writers(layout.names, layout.mappings)
        self.image: ImageWriter = compile_image(ARRAY_BRANCH, writers, layout.mappings)


def _compile(table: TableInfo) -> _TableRecords:
    return _TableRecords(table_layout(table))


_CONTROL_HEAD = NO_TABLE + CONTROL_TAGS + GTID_KEY
_CONTROL_TAIL = END + NO_ROW
"""A BEGIN's or COMMIT's fields around its GTID: no table, tags, no row."""


class AlibabaRecordWriter:
    """The specialised ``RecordWriter`` of ``protocol=alibaba-dts``."""

    def __init__(self) -> None:
        self._tables = RendererCache(_compile, "alibaba-dts")
        self._second = -1
        self._seconds = b""

    def transaction(
        self, rows: Sequence[RowChangedEvent], first_seq: int, now_ms: int
    ) -> tuple[list[Record], int]:
        first = rows[0]
        ts = first.commit_ts
        heads, rest = id_run(first_seq, len(rows) + 2)
        second = (ts >> LOGICAL_BITS) // 1000  # binlog.timestamp_s(ts)
        if second != self._second:  # sourceTimestamp: transactions mostly share a second
            self._second, self._seconds = second, long_bytes(second)
        seconds = self._seconds
        born = time_bytes(ts >> LOGICAL_BITS)  # physical_ms(ts)
        gtid = gtid_text(ts)
        text = POSITION_FORMAT % first_seq
        position = LENGTHS[len(text)] + text
        # safeSourcePosition (the BEGIN's), sourceTxid and source: the same on every record
        shared = b"".join((position, number_text(first.start_ts), SOURCE))
        control = b"".join((_CONTROL_HEAD, gtid, _CONTROL_TAIL, born))
        begin = b"".join(
            (VERSION_FIELD, heads[0], rest, seconds, position, shared, _BEGIN, control)
        )
        out: list[Record] = [(None, begin)]
        size = len(begin)
        get = self._tables.get
        number = 0
        for row in rows:
            number += 1
            compiled = get(row.table)
            before, after = row.before, row.after
            if before is None:
                head = compiled.insert
                old = NULL
            else:
                head = compiled.delete if after is None else compiled.update
                old = compiled.image(row, before)
            new = NULL if after is None else compiled.image(row, after)
            text = POSITION_FORMAT % (first_seq + number)
            value = b"".join((
                VERSION_FIELD, heads[number], rest, seconds, LENGTHS[len(text)], text, shared,
                head, gtid, compiled.fields, old, new, born,
            ))  # fmt: skip
            out.append((None, value))
            size += len(value)
        text = POSITION_FORMAT % (first_seq + number + 1)
        commit = b"".join((
            VERSION_FIELD, heads[-1], rest, seconds, LENGTHS[len(text)], text, shared, _COMMIT,
            control,
        ))  # fmt: skip
        out.append((None, commit))
        return out, size + len(commit)

    def ddl(self, ddl: DDLEvent, seq: int, now_ms: int) -> bytes:
        return ddl_record(ddl, seq)

    def checkpoint(self, ts: int, seq: int, now_ms: int) -> bytes:
        return checkpoint_record(ts, seq)

    def heartbeat(self, ts: int, seq: int, now_ms: int) -> bytes:
        return heartbeat_record(seq, now_ms)
