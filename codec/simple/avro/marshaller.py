"""``AvroMarshaller``: Simple Protocol messages in Avro, byte-compatible with ticdc.

Every message is one bare Avro datum of the top-level union of ``message.json``, always its last
branch ``com.pingcap.simple.avro.Message`` (first byte ``0x16``). Instead of a generic Avro
writer (fastavro is 4-8x slower on Simple's map of unions, see bench/bench_simple_avro.py),
this writes the bytes directly from fragments compiled once per table version; tests prove the
output equal to fastavro's ``schemaless_writer`` with the official schema.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from tisink.codec.errors import CodecError
from tisink.codec.simple.avro.dml import DMLRecordEncoder
from tisink.codec.simple.avro.tableschema import table_schema_bytes
from tisink.codec.simple.avro.wire import as_int64, long_bytes, optional, str_bytes
from tisink.codec.simple.json_schema import drops_pre_table_schema
from tisink.codec.values import zone_for
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent
from tisink.model.table import TableInfo

WATERMARK_HEADER = b"\x16\x00\x00\x02"
BOOTSTRAP_HEADER = b"\x16\x02\x02\x02"
DDL_HEADER = b"\x16\x04\x04\x02"
"""Message branch 11, the MessageType enum, the payload branch, then version 1."""

DDL_TYPE_SYMBOLS = ("CREATE", "ALTER", "ERASE", "RENAME", "TRUNCATE", "CINDEX", "DINDEX", "QUERY")
"""The ``DDLType`` enum of message.json, in symbol order."""
_DDL_TYPE_BYTES = {DDLType(name): long_bytes(i) for i, name in enumerate(DDL_TYPE_SYMBOLS)}

MAX_CACHED_TABLES = 4096
"""Compiled table versions kept per marshaller; the oldest is dropped beyond this."""

_Compiled = TypeVar("_Compiled")


class AvroMarshaller:
    """The Simple Protocol Avro marshaller (``encoding-format = "avro"``).

    ``time_zone`` names the zone of timestamp values and their ``location``; None means the
    process's zone, as TiCDC's server ``tz`` default does.
    """

    def __init__(self, time_zone: str | None, *, newarch: bool = True) -> None:
        self._zone = zone_for(time_zone)
        self._newarch = newarch
        """ticdc's bytes, else tiflow's: BIT's branch, TIMESTAMP's ``decimal``, the schema's
        column order and ``preTableSchema`` differ (README.md)."""
        self._rows: dict[int, DMLRecordEncoder] = {}
        self._schemas: dict[int, tuple[TableInfo, bytes]] = {}

    def marshal_row(
        self,
        row: RowChangedEvent,
        build_ts: int,
        *,
        handle_key_only: bool = False,
        claim_check_location: str | None = None,
    ) -> bytes:
        table = row.table
        encoder = self._rows.get(id(table))
        if encoder is None or encoder.table is not table:
            encoder = _remember(
                self._rows, table, DMLRecordEncoder(table, self._zone, newarch=self._newarch)
            )
        return encoder.encode(row, build_ts, handle_key_only, claim_check_location)

    def marshal_rows(self, rows: Sequence[RowChangedEvent], build_ts: int) -> list[bytes]:
        return [self.marshal_row(row, build_ts) for row in rows]

    def marshal_ddl(self, ddl: DDLEvent, build_ts: int) -> bytes:
        if ddl.is_bootstrap:
            if ddl.table is None:
                raise CodecError(f"BOOTSTRAP without a table schema: {ddl.describe()}")
            return BOOTSTRAP_HEADER + long_bytes(build_ts) + self._table_schema(ddl.table)
        table_schema = None if ddl.table is None else self._table_schema(ddl.table)
        # tiflow writes preTableSchema for every DDL with a previous table info except CREATE;
        # ticdc only for a DDL event holding two table infos (``drops_pre_table_schema``).
        pre_table = ddl.pre_table if ddl.ddl_type is not DDLType.CREATE else None
        if drops_pre_table_schema(self._newarch):
            pre_table = None
        pre_table_schema = None if pre_table is None else self._table_schema(pre_table)
        return b"".join(
            (
                DDL_HEADER,
                _DDL_TYPE_BYTES[ddl.ddl_type],
                str_bytes(ddl.query),
                long_bytes(as_int64(ddl.commit_ts)),
                long_bytes(build_ts),
                optional(table_schema),
                optional(pre_table_schema),
            )
        )

    def marshal_checkpoint(self, ts: int, build_ts: int) -> bytes:
        return WATERMARK_HEADER + long_bytes(as_int64(ts)) + long_bytes(build_ts)

    def _table_schema(self, table: TableInfo) -> bytes:
        cached = self._schemas.get(id(table))
        if cached is not None and cached[0] is table:
            return cached[1]
        compiled = table_schema_bytes(table, self._newarch)
        return _remember(self._schemas, table, (table, compiled))[1]


def _remember(cache: dict[int, _Compiled], table: TableInfo, compiled: _Compiled) -> _Compiled:
    """Store by identity (the compiled value keeps ``table`` alive, so its id stays unique)."""
    if len(cache) >= MAX_CACHED_TABLES:
        del cache[next(iter(cache))]
    cache[id(table)] = compiled
    return compiled
