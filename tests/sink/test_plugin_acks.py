"""A plugin sink that implements ``tisink.plugin.capabilities.NotifiesAcks`` is notified, not
polled: built by ``SinkFactory`` from its entry point (``memory://`` of ``tests/plugin_dist``,
loaded in this process), a draining player wakes on its acknowledgement calls.

The drain's poll interval is made a minute long, so only a notified drain ends in time; the
same sink with its ``add_ack_listener`` hidden shows that the bound is what tells them apart.
"""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from collections.abc import Sequence
from importlib.metadata import EntryPoint
from types import ModuleType
from typing import Any

import pytest

import tisink.feed.driver as driver_module
from tests.sink.plugin_support import PLUGIN_DIST
from tisink.feed.driver import TableSinkDriver
from tisink.model.events import RowChangedEvent
from tisink.model.table import ColumnInfo, make_table
from tisink.plugin import CallbackableEvent, EventSink
from tisink.plugin.capabilities import NotifiesAcks
from tisink.sink import SinkFactory, registry

TABLE = make_table("shop", "orders", 7, 1, [ColumnInfo("id", "int")])
DRAINED_WITHIN_S = 2.0


@pytest.fixture
def memory_plugin(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The memory plugin registered by entry point, as if installed."""
    spec = importlib.util.spec_from_file_location(
        "tisink_memory_sink", PLUGIN_DIST / "tisink_memory_sink.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "tisink_memory_sink", module)
    spec.loader.exec_module(module)
    provider = "tisink_memory_sink:MemorySinkProvider"
    entry = EntryPoint("memory", provider, registry.ENTRY_POINT_GROUP)
    monkeypatch.setattr(registry, "_plugins", lambda: {"memory": entry})
    monkeypatch.setattr(driver_module, "POLL_FALLBACK_S", 60.0)
    return module


class _Unsignalled:
    """The plugin's sink without ``add_ack_listener``: acknowledged as fast, never heard."""

    def __init__(self, sink: EventSink[Any]) -> None:
        self._sink = sink
        self.scheme = sink.scheme
        self.wants_txn = sink.wants_txn

    def write_events(self, events: Sequence[CallbackableEvent[Any]]) -> None:
        self._sink.write_events(events)

    @property
    def error(self) -> BaseException | None:
        return self._sink.error

    async def close(self) -> None:
        await self._sink.close()


async def _drain(factory: SinkFactory, sink: EventSink[Any]) -> TableSinkDriver:
    driver = TableSinkDriver(sink, lambda table_id: factory.create_table_sink(table_id, sink))
    for i in range(3):
        driver.add_row(RowChangedEvent(10 + i, 11 + i, TABLE, after={"id": i}))
    await asyncio.wait_for(driver.drain(13), DRAINED_WITHIN_S)
    return driver


async def test_a_plugin_sink_that_notifies_acks_is_not_polled(memory_plugin: ModuleType) -> None:
    factory = SinkFactory("memory://?name=notified")
    sink = await factory.create_event_sink()
    assert type(sink).__module__ == "tisink_memory_sink" and isinstance(sink, NotifiesAcks)
    driver = await _drain(factory, sink)
    assert driver.checkpoint() == 13
    assert len(memory_plugin.STORES["notified"]["rows"]) == 3
    await driver.close()
    await sink.close()


async def test_without_the_notification_the_drain_polls(memory_plugin: ModuleType) -> None:
    factory = SinkFactory("memory://?name=polled")
    sink = _Unsignalled(await factory.create_event_sink())
    assert not isinstance(sink, NotifiesAcks)
    with pytest.raises(TimeoutError):
        await _drain(factory, sink)
    await sink.close()
