"""What both DTS Avro formats derive from one table version: columns, mappings, keys.

Compiled once per ``TableInfo`` and kept by identity, as the Simple codec does: a row's table is
the same object for every row of a schema version, so the lookup is one ``id()`` and one ``is``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

import orjson

from tisink.codec.dts.avro.mapping import ValueMapping, value_mapping
from tisink.model.table import TableInfo

MAX_CACHED_TABLES = 4096
"""Compiled table versions kept per writer; the oldest is dropped beyond this."""

PRIMARY = "PRIMARY"
"""The key ``pk_uk_info`` gives the primary key, whatever TiDB calls the index."""

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class TableLayout:
    """One table version as DTS describes it. Virtual generated columns are left out of
    ``names``, as they are of TiCDC's row images."""

    table: TableInfo
    names: tuple[str, ...]
    mappings: tuple[ValueMapping, ...]
    primary_key: tuple[str, ...]
    pk_uk_info: str
    """``{"PRIMARY":[...],"<unique index>":[...]}`` in index order (Alibaba's ``tags``)."""


def table_layout(table: TableInfo) -> TableLayout:
    columns = table.stored_columns
    keys: dict[str, list[str]] = {}
    primary: tuple[str, ...] = ()
    for index in table.indexes:
        if index.primary:
            primary = index.columns
            keys[PRIMARY] = list(index.columns)
        elif index.unique:
            keys.setdefault(index.name, list(index.columns))
    return TableLayout(
        table=table,
        names=tuple(c.name for c in columns),
        mappings=tuple(value_mapping(c) for c in columns),
        primary_key=primary,
        pk_uk_info=orjson.dumps(keys).decode(),
    )


class TableCache(Generic[T]):
    """Compiled state per table version, built on first use and kept by identity."""

    __slots__ = ("_build", "_compiled")

    def __init__(self, build: Callable[[TableInfo], T]) -> None:
        self._build = build
        self._compiled: dict[int, tuple[TableInfo, T]] = {}

    def get(self, table: TableInfo) -> T:
        found = self._compiled.get(id(table))
        if found is not None and found[0] is table:
            return found[1]
        if len(self._compiled) >= MAX_CACHED_TABLES:
            del self._compiled[next(iter(self._compiled))]
        compiled = self._build(table)
        # the entry keeps ``table`` alive, so its id cannot be reused while it is here
        self._compiled[id(table)] = (table, compiled)
        return compiled
