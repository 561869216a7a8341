"""The ``debug`` protocol: each event as plain JSON, for sinks used without a real protocol.

Not a TiCDC format; it exists so a file or log sink shows readable events when no codec is
asked for.
"""

from __future__ import annotations

from collections.abc import Sequence

import orjson

from tisink.codec.message import EncodedRows, Message, MessageType
from tisink.core.clock import Clock, WallClock
from tisink.model.events import DDLEvent, RowChangedEvent
from tisink.model.table import TableInfo


class DebugEncoder:
    """Implements ``codec.encoder.RowEventEncoder`` for ``protocol=debug``."""

    message_per_row = True

    def __init__(self, clock: Clock | None = None) -> None:
        self._clock = clock or WallClock()

    def encode_row(self, row: RowChangedEvent) -> Message:
        table = row.table
        value = orjson.dumps(
            {
                "type": row.op.value,
                "schema": table.schema,
                "table": table.table,
                "tableID": row.physical_table_id,
                "startTs": row.start_ts,
                "commitTs": row.commit_ts,
                "schemaVersion": table.version,
                "before": row.before,
                "after": row.after,
            }
        )
        return Message(value=value, type=MessageType.DML, rows=1, table=table.qualified_name)

    def encode_rows(self, rows: Sequence[RowChangedEvent]) -> EncodedRows:
        return EncodedRows.of([self.encode_row(row) for row in rows])

    def encode_ddl(self, ddl: DDLEvent) -> Message:
        kind = MessageType.BOOTSTRAP if ddl.is_bootstrap else MessageType.DDL
        value = orjson.dumps(
            {
                "type": kind.value if ddl.is_bootstrap else ddl.ddl_type.value,
                "sql": ddl.query,
                "commitTs": ddl.commit_ts,
                "table": ddl.table.to_dict() if ddl.table else None,
                "preTable": ddl.pre_table.to_dict() if ddl.pre_table else None,
            }
        )
        return Message(value=value, type=kind, table=ddl.qualified_name)

    def encode_bootstrap(self, table: TableInfo) -> Message:
        """A readable BOOTSTRAP; sent only where a sink runs a cadence for this encoder (the
        registry entry asks for none), as in the MQ sink's tests."""
        message = self.encode_ddl(DDLEvent.bootstrap(table))
        message.key = b""
        return message

    def encode_checkpoint(self, ts: int) -> Message:
        value = orjson.dumps({"type": "WATERMARK", "commitTs": ts, "buildTs": self._clock.now_ms()})
        return Message(value=value, type=MessageType.WATERMARK)
