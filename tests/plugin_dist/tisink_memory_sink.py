"""A minimal third-party sink: keeps rows and DDLs in memory, under the ``memory`` scheme.

It proves the ``tisink.sinks`` entry point path end to end: installed with pip, found by
``sink.registry``, built by ``sink.SinkFactory("memory://?name=...")``. Its event sink is a bare
``EventSink`` (no ``BatchingSink``) that acknowledges on the event loop, as a destination's acks
arrive, and says so to its listeners (``NotifiesAcks``): a player draining to a checkpoint
awaits those calls instead of polling.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from tisink.plugin import CallbackableEvent, ChangefeedConfig, Clock, SinkURI
from tisink.plugin.events import DDLEvent, TableInfo

Store = dict[str, list[Any]]

STORES: dict[str, Store] = {}
"""Everything written, by the URI's ``name`` parameter, so a test can look at it."""


class MemoryEventSink:
    scheme = "memory"
    wants_txn = False

    def __init__(self, store: Store) -> None:
        self.store = store
        self._listeners: list[Callable[[], None]] = []

    def write_events(self, events: Sequence[CallbackableEvent[Any]]) -> None:
        self.store["rows"].extend(event.event for event in events)
        asyncio.get_running_loop().call_soon(self._acknowledge, list(events))

    def _acknowledge(self, events: list[CallbackableEvent[Any]]) -> None:
        for event in events:
            event.callback()
        for listener in self._listeners:
            listener()

    def add_ack_listener(self, listener: Callable[[], None]) -> None:
        """``tisink.plugin.capabilities.NotifiesAcks``: ``listener`` runs after each ack."""
        self._listeners.append(listener)

    @property
    def error(self) -> BaseException | None:
        return None

    async def close(self) -> None:
        self.store["closed"].append("event sink")


class MemoryDDLSink:
    def __init__(self, store: Store) -> None:
        self.store = store

    async def write_ddl_event(self, ddl: DDLEvent) -> None:
        self.store["ddl"].append(ddl)

    async def write_checkpoint_ts(self, ts: int, tables: Sequence[TableInfo]) -> None:
        self.store["checkpoints"].append(ts)

    async def close(self) -> None:
        self.store["closed"].append("ddl sink")


class MemorySinkProvider:
    def _store(self, uri: SinkURI) -> Store:
        name = uri.params.get("name", "default")
        return STORES.setdefault(name, {"rows": [], "ddl": [], "checkpoints": [], "closed": []})

    async def create_event_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> MemoryEventSink:
        return MemoryEventSink(self._store(uri))

    async def create_ddl_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> MemoryDDLSink:
        return MemoryDDLSink(self._store(uri))
