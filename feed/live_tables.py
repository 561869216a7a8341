"""Which tables exist at a point of the feed: a WATERMARK's topics, the bootstraps at start."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from tisink.model.events import DDLEvent, DDLType
from tisink.model.table import TableInfo

LiveTables = Callable[[int], list[TableInfo]]
"""The tables that exist once every DDL with commitTs <= ts is applied."""


def apply_ddl(live: dict[int, TableInfo], ddl: DDLEvent) -> None:
    """One DDL's effect: TRUNCATE and DROP remove the old table, anything else (re)defines."""
    if ddl.pre_table is not None and ddl.ddl_type in (DDLType.TRUNCATE, DDLType.ERASE):
        live.pop(ddl.pre_table.table_id, None)
    if ddl.table is not None and ddl.ddl_type is not DDLType.ERASE:
        live[ddl.table.table_id] = ddl.table


def tables_at(ddls: Iterable[DDLEvent], ts: int) -> list[TableInfo]:
    """The live tables after the DDLs (in feed order) with commitTs <= ``ts``."""
    live: dict[int, TableInfo] = {}
    for ddl in ddls:
        if ddl.commit_ts > ts:
            break
        apply_ddl(live, ddl)
    return list(live.values())


class RunningTables:
    """The live tables of a player that sees every DDL as it plays them."""

    def __init__(self) -> None:
        self._live: dict[int, TableInfo] = {}

    def apply(self, ddl: DDLEvent) -> None:
        apply_ddl(self._live, ddl)

    def at(self, ts: int) -> list[TableInfo]:
        """The tables so far (every DDL played has commitTs <= the point asked about)."""
        return list(self._live.values())
