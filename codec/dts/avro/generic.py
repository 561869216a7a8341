"""A ``RecordWriter`` that writes a format's generic datums with fastavro.

The reference the specialised writers are proven equal to, and the benchmark's baseline: the
same datums ``*_datum`` build, written by ``fastavro.schemaless_writer`` with the shipped schema.
"""

from __future__ import annotations

from collections.abc import Sequence
from io import BytesIO
from typing import Any, Protocol

from tisink.codec.dts.avro.schemas import record_schema
from tisink.codec.message import Record
from tisink.model.events import DDLEvent, RowChangedEvent


class Datums(Protocol):
    def transaction(
        self, rows: Sequence[RowChangedEvent], first_seq: int, now_ms: int
    ) -> list[dict[str, Any]]: ...

    def ddl(self, ddl: DDLEvent, seq: int, now_ms: int) -> dict[str, Any]: ...

    def checkpoint(self, ts: int, seq: int, now_ms: int) -> dict[str, Any]: ...

    def heartbeat(self, ts: int, seq: int, now_ms: int) -> dict[str, Any]: ...


def write_datum(schema: dict[str, Any], datum: dict[str, Any]) -> bytes:
    """One bare datum: no container header, no union index."""
    import fastavro

    buffer = BytesIO()
    fastavro.schemaless_writer(buffer, schema, datum)
    return buffer.getvalue()


class GenericRecordWriter:
    """``RecordWriter`` over ``datums``, written by fastavro with ``fmt``'s schema."""

    def __init__(self, fmt: str, datums: Datums) -> None:
        self._schema = record_schema(fmt)
        self._datums = datums

    def transaction(
        self, rows: Sequence[RowChangedEvent], first_seq: int, now_ms: int
    ) -> tuple[list[Record], int]:
        datums = self._datums.transaction(rows, first_seq, now_ms)
        values = [write_datum(self._schema, datum) for datum in datums]
        return [(None, value) for value in values], sum(map(len, values))

    def ddl(self, ddl: DDLEvent, seq: int, now_ms: int) -> bytes:
        return write_datum(self._schema, self._datums.ddl(ddl, seq, now_ms))

    def checkpoint(self, ts: int, seq: int, now_ms: int) -> bytes:
        return write_datum(self._schema, self._datums.checkpoint(ts, seq, now_ms))

    def heartbeat(self, ts: int, seq: int, now_ms: int) -> bytes:
        return write_datum(self._schema, self._datums.heartbeat(ts, seq, now_ms))
