"""The hand-over from a task's routing to its player, both in the task's one thread.

A task that generates the workload itself plays all the partitions it owns through one player
on one event loop, in the thread that routes: threads would fight over the GIL (a task owning
six partitions in seven threads cost 40 us a row against 32 on one loop). So routing is
pulled: when the player's feed runs dry, the ``RoutingPump`` routes one more chunk of the
workload into it, and the player plays that chunk, so the feed holds about one chunk. A
player that stopped (the stop marker, an error) closes its feed, which then drops what it is
given and ends the routing.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Generator, Iterator
from typing import Any

from tisink.feed.spark.reports import InputProblem

Steps = Generator[None, None, InputProblem | None]
"""The routing, one chunk per step; its return value is the first problem, if any."""


def route_all(steps: Steps) -> InputProblem | None:
    """Every step of ``steps`` (a bench or a test without a player): the first problem."""
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return stop.value


class WorkloadStopped(Exception):
    """The task stopped routing the workload (an error in it): the player writes no more."""


class RoutingPump:
    """Runs the routing one step at a time, when a player asks for more."""

    def __init__(self) -> None:
        self._steps: Steps | None = None
        self.ended = False
        self.problem: InputProblem | None = None
        """What the routing found wrong with the workload (then every player stops)."""
        self.error: BaseException | None = None
        """What the routing raised (the task raises it once the players stopped)."""

    def start(self, steps: Steps) -> None:
        self._steps = steps

    def step(self) -> None:
        """Route one more chunk; once the routing is over, note how it ended."""
        if self.ended or self._steps is None:
            self.ended = True
            return
        try:
            next(self._steps)
        except StopIteration as stop:
            self.ended = True
            self.problem = stop.value
        except BaseException as err:  # raised again by the task, after its players
            self.ended = True
            self.error = err

    def stop_reason(self) -> str | None:
        if self.problem is not None:
            return self.problem.reason
        if self.error is not None:
            return f"routing the workload failed: {self.error}"
        return None


class OwnerFeed:
    """The routed items (``(ShuffleKey, value)``) of one owner, in key order."""

    def __init__(self, pump: RoutingPump) -> None:
        self._pump = pump
        self._batches: deque[list[Any]] = deque()
        self.closed = False
        """Set by the player once it takes nothing more."""

    def put(self, batch: list[Any]) -> None:
        """Hand over ``batch`` (dropped once the player closed the feed)."""
        if not self.closed:
            self._batches.append(batch)

    def close(self) -> None:
        self.closed = True
        self._batches.clear()

    def items(self) -> Iterator[Any]:
        """The items, routing more whenever none are left, until the routing ends (or
        stops on an error: raises ``WorkloadStopped``)."""
        batches, pump = self._batches, self._pump
        while True:
            while batches:
                yield from batches.popleft()
            if pump.ended:
                reason = pump.stop_reason()
                if reason is not None:
                    raise WorkloadStopped(reason)
                return
            pump.step()
