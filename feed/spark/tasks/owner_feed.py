"""The bounded hand-over from a task's routing to one of its partition owners' players.

A task that generates the workload itself routes every row in its own thread and plays each
partition it owns in a thread of its own (``Player.play`` reads a plain iterator, so each
player runs its own event loop). Rows cross in batches, so the queue costs little per row,
and at most ``QUEUED_BATCHES`` of them wait: the routing blocks on a player that falls
behind, which keeps the task's memory bounded however long the play. A player that stopped
(the stop marker, an error) closes its feed, and the routing drops its rows instead of
waiting for it.
"""

from __future__ import annotations

import queue
from collections.abc import Iterator
from typing import Any

QUEUED_BATCHES = 8
POLL_S = 0.1
"""How often a blocked ``put`` looks whether the player closed its feed."""


class WorkloadStopped(Exception):
    """The task stopped routing the workload (an error in it): the player writes no more."""


_END = object()


class OwnerFeed:
    """The queue of one owner's routed items (``(ShuffleKey, value)``), in key order."""

    def __init__(self, batches: int = QUEUED_BATCHES) -> None:
        self._queue: queue.Queue[Any] = queue.Queue(batches)
        self.closed = False
        """Set by the player once it takes nothing more."""

    def put(self, batch: list[Any]) -> None:
        """Hand over ``batch``, waiting while the queue is full (not once the player closed
        the feed: the batch is dropped)."""
        self._offer(batch)

    def end(self) -> None:
        """No more items: the player drains what is queued and finishes."""
        self._offer(_END)

    def abort(self, reason: str) -> None:
        """The routing failed: the player stops at this point with ``WorkloadStopped``."""
        self._offer(WorkloadStopped(reason))

    def close(self) -> None:
        self.closed = True

    def items(self) -> Iterator[Any]:
        """The items, batch by batch, until ``end`` (or ``abort``: raises)."""
        get = self._queue.get
        while True:
            batch = get()
            if batch is _END:
                return
            if type(batch) is WorkloadStopped:
                raise batch
            yield from batch

    def _offer(self, item: Any) -> None:
        while not self.closed:
            try:
                self._queue.put(item, timeout=POLL_S)
                return
            except queue.Full:
                continue
