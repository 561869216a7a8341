"""The worker tasks of a ``BatchingSink``: which table gets written next, and by whom.

A table with transactions queued is *ready*; each worker takes a ready table, lets the sink
write that table's next batch, and the sink makes it ready again if more is queued. A table is
in one worker's hands at a time, so its batches go out in order, while ``count`` workers write
different tables at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from tisink.eventsink.errors import EventSinkError


class TableWorkers:
    """``count`` tasks running ``handle(table_id)`` for ready tables; ``handle`` returns False
    to stop the worker (the sink died)."""

    def __init__(self, count: int, handle: Callable[[int], Awaitable[bool]], name: str) -> None:
        if count <= 0:
            raise EventSinkError(f"concurrency must be positive, got {count}")
        self._count = count
        self._handle = handle
        self._name = name
        self._ready: asyncio.Queue[int | None] | None = None
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def started(self) -> bool:
        return self._ready is not None

    def start(self) -> None:
        """Start the tasks on the running loop (RuntimeError without one)."""
        loop = asyncio.get_running_loop()
        self._ready = asyncio.Queue()
        self._tasks = [
            loop.create_task(self._work(), name=f"{self._name}-{n}") for n in range(self._count)
        ]

    def ready(self, table_id: int) -> None:
        """``table_id`` has transactions no worker is writing."""
        assert self._ready is not None
        self._ready.put_nowait(table_id)

    def stop(self) -> None:
        """Let every worker finish what it is writing, then end."""
        if self._ready is not None:
            for _ in self._tasks:
                self._ready.put_nowait(None)

    async def join(self) -> None:
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _work(self) -> None:
        assert self._ready is not None
        while True:
            table_id = await self._ready.get()
            if table_id is None or not await self._handle(table_id):
                return
