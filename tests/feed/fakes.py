"""Test doubles around the player: a late-acking event sink, a recording DDL sink, and a spy
that records what the player does to each table sink."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from random import Random
from typing import Any

from tisink.eventsink.base import CallbackableEvent
from tisink.model.events import DDLEvent, ResolvedTs, RowChangedEvent
from tisink.model.table import TableInfo
from tisink.tablesink import TableSink


class LateSink:
    """Acknowledges each event after a random number of event-loop turns (0 = at once)."""

    scheme = "late"

    def __init__(self, *, wants_txn: bool, seed: int = 0, max_turns: int = 3) -> None:
        self.wants_txn = wants_txn
        self._random = Random(seed)
        self._max_turns = max_turns
        self.log: list[tuple[str, Any]] = []
        self.written: list[RowChangedEvent] = []
        self.acked: set[int] = set()
        self.error: BaseException | None = None
        self.fail_after: int | None = None
        self.capacity_waits = 0

    def write_events(self, events: Sequence[CallbackableEvent[Any]]) -> None:
        for event in events:
            rows = event.event.rows if self.wants_txn else [event.event]
            if self.fail_after is not None and len(self.written) >= self.fail_after:
                self.error = RuntimeError("broker gone")
                return
            self.written.extend(rows)
            self._later(self._random.randint(0, self._max_turns), event, rows)

    def _later(
        self, turns: int, event: CallbackableEvent[Any], rows: list[RowChangedEvent]
    ) -> None:
        if turns:
            asyncio.get_running_loop().call_soon(self._later, turns - 1, event, rows)
            return
        for row in rows:
            self.acked.add(id(row))
            self.log.append(("ack", row))
        event.callback()

    async def wait_for_capacity(self) -> None:
        self.capacity_waits += 1

    async def close(self) -> None:
        return None


class RecordingDDLSink:
    """Records DDLs and watermarks with the set of rows acknowledged at that moment."""

    def __init__(self, events: LateSink) -> None:
        self._events = events
        self.ddls: list[tuple[DDLEvent, frozenset[int]]] = []
        self.watermarks: list[tuple[int, list[TableInfo], frozenset[int]]] = []

    async def write_ddl_event(self, ddl: DDLEvent) -> None:
        self._events.log.append(("ddl", ddl))
        self.ddls.append((ddl, frozenset(self._events.acked)))

    async def write_checkpoint_ts(self, ts: int, tables: Sequence[TableInfo]) -> None:
        self.watermarks.append((ts, list(tables), frozenset(self._events.acked)))

    async def close(self) -> None:
        return None


class SpyTableSink:
    """A real TableSink whose appends and resolved ts are recorded in ``calls``."""

    def __init__(self, table_id: int, event_sink: Any, calls: list[tuple[str, int, Any]]) -> None:
        self.inner = TableSink(table_id, event_sink, output_raw_change_event=True)
        self.table_id = table_id
        self._calls = calls

    def append_row_changed_events(self, rows: Sequence[RowChangedEvent]) -> None:
        self._calls.append(("append", self.table_id, list(rows)))
        self.inner.append_row_changed_events(rows)

    def update_resolved_ts(self, rts: ResolvedTs) -> None:
        self._calls.append(("resolve", self.table_id, rts.ts))
        self.inner.update_resolved_ts(rts)

    def get_checkpoint_ts(self) -> ResolvedTs:
        return self.inner.get_checkpoint_ts()

    async def close(self) -> None:
        self._calls.append(("close", self.table_id, None))
        await self.inner.close()

    def async_close(self) -> bool:
        return self.inner.async_close()
