"""Lanes: the database connections of one ``SQLSink``, each with the one thread that uses it.

TiCDC's MySQL sink writes through ``worker-count`` connections at once. Here each lane is a
connection (a copy of the sink's dialect), the thread that owns it and the row statements built
for it (a PostgreSQL stage table lives in one session). ``BatchingSink`` never writes two
batches of one table at once, so lanes only ever share work across tables: while the server
applies one table's batch, the client builds another's statements.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from tisink.eventsink.sql.dialect import Dialect
from tisink.eventsink.sql.rows import RowStatements

T = TypeVar("T")
StatementKey = tuple[int, int, str]
"""Table id, schema version, ``schema.table``."""


class Lane:
    """One connection, its thread and its statements."""

    def __init__(self, dialect: Dialect, number: int) -> None:
        self.dialect = dialect
        self.statements: dict[StatementKey, RowStatements] = {}
        self._thread = ThreadPoolExecutor(1, thread_name_prefix=f"tisink-{dialect.name}-{number}")

    async def run(self, call: Callable[..., T], *args: object) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._thread, call, *args)

    def shutdown(self) -> None:
        self._thread.shutdown()


class Lanes:
    """``count`` lanes over copies of ``dialect`` (the first is ``dialect`` itself)."""

    def __init__(self, dialect: Dialect, count: int) -> None:
        self.all = [Lane(dialect, 0)]
        self.all += [Lane(copy.copy(dialect), n) for n in range(1, count)]
        self._free: asyncio.Queue[Lane] | None = None

    async def run(self, call: Callable[..., T], *args: object) -> T:
        """``call(lane, *args)`` on a free lane's thread."""
        if self._free is None:
            self._free = asyncio.Queue()
            for lane in self.all:
                self._free.put_nowait(lane)
        lane = await self._free.get()
        try:
            return await lane.run(call, lane, *args)
        finally:
            self._free.put_nowait(lane)

    def forget_statements(self) -> None:
        """After a DDL: tables may have gone or changed shape on every lane."""
        for lane in self.all:
            lane.statements.clear()
