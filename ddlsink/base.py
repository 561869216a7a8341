"""The DDLSink interface (TiCDC ``cdc/sink/ddlsink/ddl_sink.go``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from tisink.model.events import DDLEvent
from tisink.model.table import TableInfo


class DDLSink(Protocol):
    """Synchronous in TiCDC's sense: each call returns once the destination acknowledged it."""

    async def write_ddl_event(self, ddl: DDLEvent) -> None: ...

    async def write_checkpoint_ts(self, ts: int, tables: Sequence[TableInfo]) -> None:
        """Announce that every row with commitTs <= ts of ``tables`` is written."""
        ...

    async def close(self) -> None: ...


@runtime_checkable
class BootstrapsAtStart(Protocol):
    """A DDL sink that sends ``send-all-bootstrap-at-start`` BOOTSTRAPs (Simple Protocol's)."""

    async def write_bootstrap_at_start(self, tables: Sequence[TableInfo]) -> None: ...
