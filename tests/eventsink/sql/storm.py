"""Hand-made feeds: a ``FeedBuilder`` that numbers commit timestamps as TiDB's TSOs would."""

from __future__ import annotations

from tisink.feed.format.records import FeedDDL, FeedRecord, FeedRow
from tisink.model.events import DDLEvent, DDLType, Image, RowChangedEvent
from tisink.model.table import TableInfo

BASE_TS = 1_700_000_000_000 << 18
STEP = 50 << 18
"""50 ms of commit time between transactions."""


class FeedBuilder:
    """Records of a feed in commit order: DDLs and one-table transactions."""

    def __init__(self) -> None:
        self.records: list[FeedRecord] = []
        self.ts = BASE_TS

    def _tick(self) -> int:
        self.ts += STEP
        return self.ts

    def ddl(self, kind: DDLType, table: TableInfo, pre: TableInfo | None = None) -> None:
        ts = self._tick()
        event = DDLEvent(ts, kind, "", table, pre, start_ts=ts - 1)
        self.records.append(FeedDDL(ts, ts - 1, event))

    def txn(self, table: TableInfo, *changes: tuple[Image | None, Image | None]) -> None:
        ts = self._tick()
        for before, after in changes:
            self.records.append(FeedRow(RowChangedEvent(ts - 1, ts, table, before, after)))
