"""FeedWriter: records to a change feed file, one compact JSON line each (spec/feed-format.md).

The writer does not validate (the reader does): generators produce values in the feed form
already, and writing must stay cheap. Reading a written feed gives back equal events.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import orjson

from tisink.feed.format.checksums import checksum_record
from tisink.feed.format.records import FeedDDL, FeedRecord, FeedResolved, FeedRow
from tisink.model.events import DDLEvent, RowChangedEvent


def row_record(row: RowChangedEvent) -> dict[str, Any]:
    """The ``row`` record of ``row`` in the spec's key order."""
    record: dict[str, Any] = {
        "type": "row",
        "commitTs": row.commit_ts,
        "startTs": row.start_ts,
        "tableID": row.table.table_id,
        "op": row.op.value,
    }
    if row.after is not None:
        record["after"] = row.after
    if row.before is not None:
        record["before"] = row.before
    if row.checksum is not None:
        record["checksum"] = checksum_record(row.checksum)
    return record


def ddl_record(ddl: DDLEvent) -> dict[str, Any]:
    """The ``ddl`` record of ``ddl``; ``table``/``preTable`` only when the DDL has them."""
    record: dict[str, Any] = {
        "type": "ddl",
        "commitTs": ddl.commit_ts,
        "startTs": ddl.start_ts,
        "ddlType": ddl.ddl_type.value,
        "query": ddl.query,
    }
    if ddl.table is not None:
        record["table"] = ddl.table.to_dict()
    if ddl.pre_table is not None:
        record["preTable"] = ddl.pre_table.to_dict()
    return record


class FeedWriter:
    """Writes feed records to a path (created or truncated) or to an open stream.

    A text stream gets ``str`` lines, a binary one bytes. The writer closes only what it opened.
    """

    def __init__(self, target: str | os.PathLike[str] | IO[bytes] | IO[str]) -> None:
        self._stream: IO[Any]
        if isinstance(target, str | os.PathLike):
            # held open until close(): the writer is the context manager
            self._stream = Path(target).open("wb")  # noqa: SIM115
            self._owned = True
        else:
            self._stream = target
            self._owned = False
        self._text = isinstance(self._stream, io.TextIOBase)
        self.lines = 0

    def write(self, record: FeedRecord) -> None:
        match record:
            case FeedRow(row=row):
                self.write_row(row)
            case FeedDDL(ddl=ddl):
                self.write_ddl(ddl)
            case FeedResolved(ts=ts):
                self.write_resolved(ts)

    def write_all(self, records: Iterable[FeedRecord]) -> None:
        for record in records:
            self.write(record)

    def write_row(self, row: RowChangedEvent) -> None:
        self._line(row_record(row))

    def write_ddl(self, ddl: DDLEvent) -> None:
        self._line(ddl_record(ddl))

    def write_resolved(self, ts: int) -> None:
        self._line({"type": "resolved", "ts": ts})

    def _line(self, record: dict[str, Any]) -> None:
        data = orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE)
        self._stream.write(data.decode() if self._text else data)
        self.lines += 1

    def flush(self) -> None:
        self._stream.flush()

    def close(self) -> None:
        if self._owned:
            self._stream.close()
        else:
            self._stream.flush()

    def __enter__(self) -> FeedWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
