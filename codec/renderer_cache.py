"""What an encoder builds once per table version (row renderers, compiled writers, a serialised
schema), found by identity first.

A schema version's rows share one TableInfo object, so the last one asked for is kept and an
identity check finds it. Otherwise entries are keyed by table id, schema version and names (a
RENAME keeps its version but gets new names, and rows still carrying the old ones keep theirs)
and checked against the TableInfo, so an equal table of another origin (another feed, a decoded
schema) reuses the entry and a different table with the same key is built anew.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Generic, TypeVar

from tisink.model.table import TableInfo

log = logging.getLogger(__name__)

Built = TypeVar("Built")


class RendererCache(Generic[Built]):
    """``get(table)`` gives ``build(table)``, built on the first row of the table's version."""

    __slots__ = ("_build", "_entries", "_last", "_name")

    def __init__(self, build: Callable[[TableInfo], Built], name: str) -> None:
        self._build = build
        self._name = name
        self._entries: dict[tuple[int, int, str, str], tuple[TableInfo, Built]] = {}
        self._last: tuple[TableInfo, Built] | None = None

    def get(self, table: TableInfo) -> Built:
        last = self._last
        if last is not None and last[0] is table:
            return last[1]
        key = (table.table_id, table.version, table.schema, table.table)
        entry = self._entries.get(key)
        if entry is None or (entry[0] is not table and entry[0] != table):
            log.debug("%s: %s version %d", self._name, table.qualified_name, table.version)
            entry = (table, self._build(table))
        elif entry[0] is not table:
            entry = (table, entry[1])  # equal: from now on the identity check finds it
        self._entries[key] = self._last = entry
        return entry[1]
