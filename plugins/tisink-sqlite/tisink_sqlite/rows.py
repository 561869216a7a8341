"""Row changes as SQLite statements, idempotent by handle key (TiCDC's safe mode).

With a handle key (the primary key, else a NOT NULL unique key): INSERT and UPDATE write the
whole new image with ``INSERT OR REPLACE``, DELETE deletes by key, and an UPDATE that changes
the key deletes the old key first. Applying a change twice therefore leaves the same row, so a
replay after a restart (at-least-once delivery) converges to the same table.

A table without a handle key cannot be written idempotently: rows are inserted, and a DELETE
(or the old image of an UPDATE) removes one row equal to the old image in every column.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from operator import itemgetter
from typing import Any

from tisink.plugin import Image, RowChangedEvent, TableInfo
from tisink_sqlite.schema import quote, table_name
from tisink_sqlite.values import Convert, converter

Run = tuple[str, list[Sequence[Any]]]
"""One statement and the parameters of its consecutive uses: one ``executemany``."""


class _Images:
    """Reads the values of some columns from row images, converted: one C-level fetch of the
    whole tuple, then a call per value only for the columns that need converting."""

    def __init__(self, names: list[str], converts: list[Convert | None]) -> None:
        self._names = names
        self._get = itemgetter(*names) if len(names) > 1 else None
        self._convert = [(i, c) for i, c in enumerate(converts) if c is not None]

    def __call__(self, image: Image) -> Sequence[Any]:
        values: Sequence[Any] = (
            self._get(image) if self._get is not None else (image[self._names[0]],)
        )
        if not self._convert:
            return values
        out = list(values)
        for index, convert in self._convert:
            value = out[index]
            if value is not None:
                out[index] = convert(value)
        return out


class RowStatements:
    """The statements of one table at one schema version, compiled once."""

    def __init__(self, table: TableInfo) -> None:
        name = quote(table_name(table))
        columns = table.stored_columns
        by_name = {col.name: col for col in columns}
        names = [col.name for col in columns]
        self.values = _Images(names, [converter(col) for col in columns])
        self.key = table.handle_key
        # what finds the row an old image describes: its key, else every column
        self._old = (
            _Images(list(self.key), [converter(by_name[k]) for k in self.key])
            if self.key
            else self.values
        )
        marks = ", ".join("?" * len(columns))
        verb = "INSERT OR REPLACE" if self.key else "INSERT"
        self.write = f"{verb} INTO {name} ({', '.join(map(quote, names))}) VALUES ({marks})"
        if self.key:
            match = " AND ".join(f"{quote(k)} = ?" for k in self.key)
            self.delete = f"DELETE FROM {name} WHERE {match}"
        else:
            match = " AND ".join(f"{quote(n)} IS ?" for n in names)
            self.delete = (
                f"DELETE FROM {name} WHERE rowid = (SELECT rowid FROM {name} WHERE {match} LIMIT 1)"
            )

    def runs(self, rows: Iterable[RowChangedEvent]) -> list[Run]:
        """The statements for ``rows`` in order, consecutive uses of one statement merged."""
        runs: list[Run] = []
        last_sql = ""
        params: list[Sequence[Any]] = []
        for row in rows:
            before, after = row.before, row.after
            steps: list[tuple[str, Sequence[Any]]] = []
            if before is not None and (
                after is None or not self.key or self._old(before) != self._old(after)
            ):
                steps.append((self.delete, self._old(before)))
            if after is not None:
                steps.append((self.write, self.values(after)))
            for sql, values in steps:
                if sql != last_sql:
                    params = []
                    runs.append((sql, params))
                    last_sql = sql
                params.append(values)
        return runs
