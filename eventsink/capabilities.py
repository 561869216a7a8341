"""What an event sink may do beyond the EventSink protocol, as typed, runtime-checkable Protocols.

A caller asks ``isinstance(sink, BackPressured)`` instead of probing attributes, so a type
checker sees every ability a caller uses, and a plugin sink gets an ability by implementing it.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class BackPressured(Protocol):
    """A sink with a bounded buffer: callers wait for room before handing over more."""

    async def wait_for_capacity(self) -> None: ...


@runtime_checkable
class TracksInflight(Protocol):
    """A sink that says how many bytes it was given and has not had acknowledged yet."""

    @property
    def inflight_bytes(self) -> int: ...


@runtime_checkable
class RunsTimers(Protocol):
    """A sink with timers of its own (BOOTSTRAP cadence, idle-partition HEARTBEATs): a player
    whose clock just moved has them run now, at this place in the stream, and waits until
    what they wrote is queued ahead of anything handed over later."""

    async def run_timers(self) -> None: ...
