"""A minimal third-party sink: keeps rows and DDLs in memory, under the ``memory`` scheme.

It exists to prove the ``tisink.sinks`` entry point path end to end: installed with pip, found
by ``sink.registry``, built by ``sink.SinkFactory("memory://?name=...")``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

STORES: dict[str, dict[str, list[Any]]] = {}
"""Everything written, by the URI's ``name`` parameter, so a test can look at it."""


class MemoryEventSink:
    scheme = "memory"
    wants_txn = False

    def __init__(self, store: dict[str, list[Any]]) -> None:
        self.store = store

    def write_events(self, events: Sequence[Any]) -> None:
        for event in events:
            self.store["rows"].append(event.event)
            event.callback()

    @property
    def error(self) -> BaseException | None:
        return None

    async def close(self) -> None:
        self.store["closed"].append("event sink")


class MemoryDDLSink:
    def __init__(self, store: dict[str, list[Any]]) -> None:
        self.store = store

    async def write_ddl_event(self, ddl: Any) -> None:
        self.store["ddl"].append(ddl)

    async def write_checkpoint_ts(self, ts: int, tables: Sequence[Any]) -> None:
        self.store["checkpoints"].append(ts)

    async def close(self) -> None:
        self.store["closed"].append("ddl sink")


class MemorySinkProvider:
    def _store(self, uri: Any) -> dict[str, list[Any]]:
        name = uri.params.get("name", "default")
        return STORES.setdefault(name, {"rows": [], "ddl": [], "checkpoints": [], "closed": []})

    async def create_event_sink(self, uri: Any, config: Any, clock: Any) -> MemoryEventSink:
        return MemoryEventSink(self._store(uri))

    async def create_ddl_sink(self, uri: Any, config: Any, clock: Any) -> MemoryDDLSink:
        return MemoryDDLSink(self._store(uri))
