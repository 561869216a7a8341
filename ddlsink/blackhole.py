"""BlackholeDDLSink: accepts DDLs and checkpoints and forgets them."""

from __future__ import annotations

from collections.abc import Sequence

from tisink.model.events import DDLEvent
from tisink.model.table import TableInfo


class BlackholeDDLSink:
    def __init__(self) -> None:
        self.ddl_count = 0
        self.checkpoint_ts = 0

    async def write_ddl_event(self, ddl: DDLEvent) -> None:
        self.ddl_count += 1

    async def write_checkpoint_ts(self, ts: int, tables: Sequence[TableInfo]) -> None:
        self.checkpoint_ts = max(self.checkpoint_ts, ts)

    async def close(self) -> None:
        return None
