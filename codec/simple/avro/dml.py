"""The Avro DML record of one table version, compiled once and reused for every row.

Layout (spec 3.1/3.2): the ``Message`` union branch and header ``16 06 06``, then the ``DML``
record: version, database, table, tableID, type, commitTs, buildTs, schemaVersion,
claimCheckLocation, handleKeyOnly, checksum, data, old. Map entries follow table column order
with virtual generated columns skipped; TiCDC itself writes them in Go's random map order, so
only the decoded map is comparable with its output, while ours is deterministic.
"""

from __future__ import annotations

import datetime

from tisink.codec.errors import CodecError
from tisink.codec.simple.avro.columns import ColumnWriter, column_writer
from tisink.codec.simple.avro.maps import compile_map
from tisink.codec.simple.avro.wire import (
    NULL_BRANCH,
    SECOND_BRANCH,
    TRUE,
    as_int64,
    bool_bytes,
    long_bytes,
    str_bytes,
)
from tisink.codec.values.checks import VALUE_ERRORS
from tisink.model.events import RowChangedEvent, RowChecksum
from tisink.model.table import TableInfo

DML_HEADER = b"\x16\x06\x06\x02"
"""Message branch 11, type DML (3), payload branch DML (3), version 1."""

_HANDLE_KEY_ONLY = SECOND_BRANCH + TRUE


class DMLRecordEncoder:
    """Encodes rows of one ``TableInfo`` (one schema version) into Avro DML messages."""

    __slots__ = (
        "_build_ts",
        "_columns",
        "_commit_ts",
        "_handle_columns",
        "_handle_map",
        "_map",
        "_names",
        "_table_id",
        "_version",
        "table",
    )

    def __init__(
        self, table: TableInfo, zone: tuple[str, datetime.tzinfo], *, newarch: bool = True
    ) -> None:
        self.table = table
        self._names = str_bytes(table.schema) + str_bytes(table.table)
        self._table_id = long_bytes(table.table_id)
        self._version = long_bytes(as_int64(table.version))
        stored = [(c, column_writer(c, zone, newarch)) for c in table.stored_columns]
        handle = set(table.handle_key)
        handle_stored = [pair for pair in stored if pair[0].name in handle]
        self._columns = [writer for _, writer in stored]
        self._handle_columns = [writer for _, writer in handle_stored]
        self._map = compile_map(stored)
        self._handle_map = compile_map(handle_stored)
        # the rows of a transaction share commitTs, those of a batch buildTs: the last
        # encodings are kept
        self._commit_ts: tuple[int, bytes] = (0, long_bytes(0))
        self._build_ts: tuple[int, bytes] = (0, long_bytes(0))

    def encode(
        self,
        row: RowChangedEvent,
        build_ts: int,
        handle_key_only: bool,
        claim_check_location: str | None,
    ) -> bytes:
        map_bytes = self._handle_map if handle_key_only else self._map
        before, after = row.before, row.after
        table_id = (
            self._table_id
            if row.physical_table_id == self.table.table_id
            else long_bytes(row.physical_table_id)
        )
        if before is None:
            op = b"\x00"
        elif after is None:
            op = b"\x04"
        else:
            op = b"\x02"
        try:
            data = NULL_BRANCH if after is None else map_bytes(after)
            old = NULL_BRANCH if before is None else map_bytes(before)
        except VALUE_ERRORS as err:
            columns = self._handle_columns if handle_key_only else self._columns
            raise self._diagnose(row, columns, err) from err
        commit_ts, commit_bytes = self._commit_ts
        if commit_ts != row.commit_ts:
            commit_ts = row.commit_ts
            commit_bytes = long_bytes(as_int64(commit_ts))
            self._commit_ts = (commit_ts, commit_bytes)
        last_build_ts, build_bytes = self._build_ts
        if last_build_ts != build_ts:
            build_bytes = long_bytes(build_ts)
            self._build_ts = (build_ts, build_bytes)
        return b"".join(
            (
                DML_HEADER,
                self._names,
                table_id,
                op,
                commit_bytes,
                build_bytes,
                self._version,
                NULL_BRANCH
                if claim_check_location is None
                else SECOND_BRANCH + str_bytes(claim_check_location),
                _HANDLE_KEY_ONLY if handle_key_only else NULL_BRANCH,
                NULL_BRANCH if row.checksum is None else SECOND_BRANCH + _checksum(row.checksum),
                data,
                old,
            )
        )

    def _diagnose(
        self, row: RowChangedEvent, columns: list[ColumnWriter], err: Exception
    ) -> CodecError:
        """Find the column that failed, so the error names table, column and value."""
        for label, image in (("after", row.after), ("before", row.before)):
            if image is None:
                continue
            for name, _null, _prefix, write in columns:
                if name not in image:
                    return CodecError(f"{row.describe()}: {label} image lacks column {name!r}")
                value = image[name]
                if value is None:
                    continue
                try:
                    write(value)
                except VALUE_ERRORS as cause:
                    return CodecError(
                        f"{row.describe()}: column {name!r} value {value!r} cannot be "
                        f"encoded as {self.table.column_by_name[name].mysql_type}: {cause}"
                    )
        return CodecError(f"{row.describe()}: cannot encode row: {err!r}")


def _checksum(checksum: RowChecksum) -> bytes:
    """The ``Checksum`` record: version, corrupted, current, previous (uint32s as longs)."""
    return b"".join(
        (
            long_bytes(checksum.version),
            bool_bytes(checksum.corrupted),
            long_bytes(checksum.current),
            long_bytes(checksum.previous),
        )
    )
