"""Alibaba ``Record``s as generic datums: the slow reference for ``record``.

The same records as the byte writer, built as dicts from the same field helpers, for fastavro's
``schemaless_writer`` with the verbatim schema. Used by the tests that prove the byte writer
equal to fastavro and by the benchmark's baseline; never on the hot path.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tisink.codec.dts import binlog
from tisink.codec.dts.alibaba.fields import (
    GTID,
    GTID_SET,
    NAMESPACE,
    SOURCE_TYPE_MYSQL,
    VERSION,
    ddl_object_name,
    object_name,
    tag_values,
)
from tisink.codec.dts.avro.layout import table_layout
from tisink.codec.dts.avro.native import native_image
from tisink.codec.dts.avro.source import SOURCE_VERSION, position
from tisink.codec.renderer_cache import RendererCache
from tisink.model.events import DDLEvent, RowChangedEvent
from tisink.model.tso import physical_ms

Datum = dict[str, Any]
_SOURCE_TYPES = ("MySQL",)


def _record(seq: int, ts: int, safe: int | None, txid: str, operation: str) -> Datum:
    """A Record with the header fields set and everything optional empty."""
    return {
        "version": VERSION,
        "id": seq,
        "sourceTimestamp": binlog.timestamp_s(ts),
        "sourcePosition": position(seq),
        "safeSourcePosition": position(seq if safe is None else safe),
        "sourceTxid": txid,
        "source": {"sourceType": _SOURCE_TYPES[SOURCE_TYPE_MYSQL], "version": SOURCE_VERSION},
        "operation": operation,
        "objectName": None,
        "processTimestamps": None,
        "tags": {},
        "fields": None,
        "beforeImages": None,
        "afterImages": None,
        "bornTimestamp": physical_ms(ts),
    }


class AlibabaDatums:
    """Builds the datums ``AlibabaRecordWriter`` writes as bytes."""

    def __init__(self) -> None:
        self._layouts = RendererCache(table_layout, "alibaba-dts")

    def transaction(
        self, rows: Sequence[RowChangedEvent], first_seq: int, now_ms: int
    ) -> list[Datum]:
        first = rows[0]
        ts = first.commit_ts
        txid = binlog.transaction_id(first.start_ts)
        control_tags = {**tag_values(None), GTID: binlog.gtid(ts)}
        out = [_record(first_seq, ts, first_seq, txid, "BEGIN")]
        out[0]["tags"] = control_tags
        seq = first_seq
        for row in rows:
            seq += 1
            layout = self._layouts.get(row.table)
            record = _record(seq, ts, first_seq, txid, row.op.value)
            record["objectName"] = object_name(row.table.schema, row.table.table)
            record["tags"] = {**tag_values(layout.pk_uk_info), GTID: binlog.gtid(ts)}
            record["fields"] = [
                {"name": name, "dataTypeNumber": mapping.type_code}
                for name, mapping in zip(layout.names, layout.mappings, strict=True)
            ]
            for key, image in (("beforeImages", row.before), ("afterImages", row.after)):
                if image is not None:
                    record[key] = native_image(NAMESPACE, layout.names, layout.mappings, image)
            out.append(record)
        commit = _record(seq + 1, ts, first_seq, txid, "COMMIT")
        commit["tags"] = dict(control_tags)
        out.append(commit)
        return out

    def ddl(self, ddl: DDLEvent, seq: int, now_ms: int) -> Datum:
        txid = binlog.transaction_id(ddl.start_ts) if ddl.start_ts else ""
        record = _record(seq, ddl.commit_ts, None, txid, "DDL")
        record["objectName"] = ddl_object_name(ddl)
        record["tags"] = {**tag_values(None), GTID: binlog.gtid(ddl.commit_ts)}
        record["afterImages"] = ddl.query
        return record

    def checkpoint(self, ts: int, seq: int, now_ms: int) -> Datum:
        record = _record(seq, ts, None, "", "CHECKPOINT")
        record["tags"] = {**tag_values(None), GTID_SET: binlog.synced_gtid(ts)}
        return record

    def heartbeat(self, ts: int, seq: int, now_ms: int) -> Datum:
        record = _record(seq, ts, None, "", "HEARTBEAT")
        record["sourceTimestamp"] = now_ms // 1000
        record["bornTimestamp"] = now_ms
        record["tags"] = tag_values(None)
        return record
