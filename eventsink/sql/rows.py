"""Row changes as statements, idempotent by handle key (TiCDC's safe mode).

With a handle key (the primary key, else a NOT NULL unique key): INSERT and UPDATE write the
whole new image with the dialect's upsert, DELETE deletes by key, and an UPDATE that changes the
key (TiCDC's MySQL sink gets them whole) deletes the old key first. Applying a change twice
leaves the same row, so a replay after a restart (at-least-once delivery) converges to the same
table. Without a handle key, rows are inserted, and a DELETE (or the old image of an UPDATE)
removes one row equal to the old image in every column.

A batch of a keyed table is applied by its net effect per key: rows of different keys commute
(secondary indexes are not unique, ``schema.py``), and the batch is one database transaction, so
only each key's last image (or its absence) matters. That is one delete of the keys that end
absent and one upsert of the last images: two *runs*, each handed to the driver at once
(multi-row statements, key lists, ``executemany``: the dialect's fastest path), however the
batch's inserts, updates and deletes interleave. A table without a key keeps its rows' order,
consecutive uses of one statement forming a run.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from operator import itemgetter
from typing import Any

from tisink.eventsink.sql.dialect import Cursor, Dialect, Params
from tisink.eventsink.sql.errors import SQLSinkError
from tisink.eventsink.sql.values import Convert
from tisink.model.events import Image, RowChangedEvent
from tisink.model.table import ColumnInfo, TableInfo

WRITE, DELETE = "write", "delete"
Run = tuple[str, list[Params]]
"""What a run does (``WRITE`` or ``DELETE``) and the parameters of its rows."""


class _Images:
    """Reads the values of some columns from row images, converted: one C-level fetch of the
    whole tuple, then a call per value only for the columns that need converting. A value
    that cannot be converted is an error naming the table and the column."""

    def __init__(self, table: str, names: list[str], converts: list[Convert | None]) -> None:
        self._table = table
        self._names = names
        self._get = itemgetter(*names) if len(names) > 1 else None
        self._convert = [(i, c) for i, c in enumerate(converts) if c is not None]

    def __call__(self, image: Image) -> Params:
        values: Sequence[Any] = (
            self._get(image) if self._get is not None else (image[self._names[0]],)
        )
        if not self._convert:
            return values
        out = list(values)
        for index, convert in self._convert:
            value = out[index]
            if value is not None:
                try:
                    out[index] = convert(value)
                except (TypeError, ValueError) as err:
                    raise SQLSinkError(
                        f"table {self._table} column {self._names[index]}: cannot store "
                        f"{value!r}: {err}"
                    ) from err
        return out


class RowStatements:
    """The statements of one table at one schema version, built once."""

    def __init__(self, dialect: Dialect, table: TableInfo) -> None:
        self._dialect = dialect
        self.table = table
        self.ref = dialect.ref(table)
        self.columns: tuple[ColumnInfo, ...] = table.stored_columns
        by_name = {col.name: col for col in self.columns}
        names = [col.name for col in self.columns]
        name = table.qualified_name
        self.values = _Images(name, names, [dialect.converter(col) for col in self.columns])
        self.key = table.handle_key
        self._key_positions = [names.index(k) for k in self.key]
        # what finds the row an old image describes: its key, else every column
        self._old = (
            _Images(name, list(self.key), [dialect.converter(by_name[k]) for k in self.key])
            if self.key
            else self.values
        )
        if self.key:
            self.write = dialect.upsert_sql(self.ref, names, self.key)
            self.delete = dialect.delete_sql(self.ref, self.key)
        else:
            self.write = dialect.insert_sql(self.ref, names)
            self.delete = dialect.delete_one_sql(self.ref, names)
        self._writer = dialect.row_writer(self.ref, names, self.key)
        self.failed: Run | None = None
        """The run being written when ``apply`` raised."""

    def runs(self, rows: Iterable[RowChangedEvent]) -> list[Run]:
        """The runs that leave the table as applying ``rows`` in order would."""
        if not self.key:
            return self._ordered_runs(rows)
        net: dict[tuple[Any, ...], Params | None] = {}
        old, values, positions = self._old, self.values, self._key_positions
        for row in rows:
            before, after = row.before, row.after
            if after is not None:
                image = values(after)
                key = tuple([image[i] for i in positions])
                if before is not None:
                    was = tuple(old(before))
                    if was != key:
                        net[was] = None
                net[key] = image
            elif before is not None:
                net[tuple(old(before))] = None
        gone: list[Params] = [key for key, image in net.items() if image is None]
        kept = [image for image in net.values() if image is not None]
        return [run for run in ((DELETE, gone), (WRITE, kept)) if run[1]]

    def _ordered_runs(self, rows: Iterable[RowChangedEvent]) -> list[Run]:
        runs: list[Run] = []
        last = ""
        params: list[Params] = []
        values = self.values
        for row in rows:
            before, after = row.before, row.after
            if before is not None:
                if last != DELETE:
                    params = []
                    runs.append((DELETE, params))
                    last = DELETE
                params.append(values(before))
            if after is not None:
                if last != WRITE:
                    params = []
                    runs.append((WRITE, params))
                    last = WRITE
                params.append(values(after))
        return runs

    def apply(self, cur: Cursor, rows: Iterable[RowChangedEvent]) -> None:
        """Write ``rows`` in the caller's transaction."""
        dialect = self._dialect
        for run in self.runs(rows):
            self.failed = run
            kind, params = run
            if kind == WRITE:
                self._writer(cur, params)
            elif self.key:
                dialect.delete_rows(cur, self.ref, self.key, params)
            else:
                cur.executemany(self.delete, params)
        self.failed = None
