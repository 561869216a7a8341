"""Tencent ``Record``s as generic datums: the slow reference for ``record``.

Built as dicts from the same field helpers, for fastavro's ``schemaless_writer`` with the
rebuilt schema; used by the equality tests and the benchmark's baseline.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tisink.codec.dts import binlog
from tisink.codec.dts.avro.layout import table_layout
from tisink.codec.dts.avro.native import native_image
from tisink.codec.dts.avro.source import SOURCE_VERSION, position
from tisink.codec.dts.tencent.avro.fields import (
    DDL_EXECUTION_TIME_S,
    INDEX,
    NAMESPACE,
    SOURCE_TYPE,
    TOTAL,
    VERSION,
    column_fields,
    ddl_subject,
    object_name,
)
from tisink.codec.renderer_cache import RendererCache
from tisink.model.events import DDLEvent, RowChangedEvent

Datum = dict[str, Any]


def _record(seq: int, message_type: str, safe: int, ts: int, gtid: str, now_ms: int) -> Datum:
    """A Record with the binlog fields set and everything optional empty."""
    return {
        "id": seq,
        "version": VERSION,
        "messageType": message_type,
        "fileName": binlog.BINLOG_FILE,
        "position": position(seq),
        "safePosition": position(safe),
        "timestamp": binlog.timestamp_s(ts),
        "gtid": gtid,
        "transactionId": None,
        "serverId": binlog.SERVER_ID,
        "threadId": binlog.THREAD_ID,
        "sourceType": SOURCE_TYPE,
        "sourceVersion": SOURCE_VERSION,
        "schemaName": None,
        "tableName": None,
        "objectName": None,
        "columns": None,
        "oldColumns": None,
        "newColumns": None,
        "sql": None,
        "executionTime": None,
        "heartbeatTimestamp": None,
        "syncedGtid": None,
        "fakeGtid": None,
        "pkNames": None,
        "readerTimestamp": now_ms,
        "tags": {},
        "total": TOTAL,
        "index": INDEX,
    }


def _name(record: Datum, schema: str, table: str) -> None:
    record["schemaName"] = schema
    record["tableName"] = table
    record["objectName"] = object_name(schema, table)


class TencentDatums:
    """Builds the datums ``TencentRecordWriter`` writes as bytes."""

    def __init__(self) -> None:
        self._layouts = RendererCache(table_layout, "tencent-dts")

    def transaction(
        self, rows: Sequence[RowChangedEvent], first_seq: int, now_ms: int
    ) -> list[Datum]:
        first = rows[0]
        ts = first.commit_ts
        gtid = binlog.gtid(ts)
        out = [_record(first_seq, "BEGIN", first_seq, ts, gtid, now_ms)]
        seq = first_seq
        for row in rows:
            seq += 1
            layout = self._layouts.get(row.table)
            record = _record(seq, row.op.value, first_seq, ts, gtid, now_ms)
            _name(record, row.table.schema, row.table.table)
            record["columns"] = [
                {"name": name, "dataTypeNumber": code, "isKey": key, "originalType": declared}
                for name, code, key, declared in column_fields(layout)
            ]
            for key, image in (("oldColumns", row.before), ("newColumns", row.after)):
                if image is not None:
                    record[key] = native_image(NAMESPACE, layout.names, layout.mappings, image)
            record["pkNames"] = list(layout.primary_key) or None
            out.append(record)
        commit = _record(seq + 1, "COMMIT", first_seq, ts, gtid, now_ms)
        commit["transactionId"] = binlog.transaction_id(first.start_ts)
        out.append(commit)
        return out

    def ddl(self, ddl: DDLEvent, seq: int, now_ms: int) -> Datum:
        record = _record(seq, "DDL", seq, ddl.commit_ts, binlog.gtid(ddl.commit_ts), now_ms)
        subject = ddl_subject(ddl)
        if subject is not None:
            _name(record, subject.schema, subject.table)
        record["sql"] = ddl.query
        record["executionTime"] = DDL_EXECUTION_TIME_S
        return record

    def checkpoint(self, ts: int, seq: int, now_ms: int) -> Datum:
        record = _record(seq, "CHECKPOINT", seq, ts, "", now_ms)
        record["syncedGtid"] = binlog.synced_gtid(ts)
        record["fakeGtid"] = True
        return record

    def heartbeat(self, ts: int, seq: int, now_ms: int) -> Datum:
        record = _record(seq, "HEARTBEAT", seq, ts, "", now_ms)
        record["timestamp"] = record["heartbeatTimestamp"] = now_ms // 1000
        return record
