"""What an event sink may do beyond the EventSink protocol, as typed, runtime-checkable Protocols.

A caller asks ``isinstance(sink, BackPressured)`` instead of probing attributes, so a type
checker sees every ability a caller uses, and a plugin sink gets an ability by implementing it.
The helpers at the end give a run what any sink reports, empty for sinks that do not.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol, runtime_checkable

from tisink.codec.bootstrap import BootstrapSend
from tisink.eventsink.stats import AckedSeconds, AcknowledgedEnds, SinkStats


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


@runtime_checkable
class FlushesAtBarriers(Protocol):
    """A sink that holds what it was handed in open files (the storage sink): a player
    draining to a barrier (DDL, watermark point) has it close them now, as TiCDC's block
    events flush every file, and then waits for their acknowledgements."""

    def flush_open(self) -> None: ...


@runtime_checkable
class ReportsStats(Protocol):
    """A sink (event or DDL) that counts what it delivered; read it after ``close``."""

    def stats(self) -> SinkStats: ...


@runtime_checkable
class CountsAckedSeconds(Protocol):
    """A sink that counts messages and bytes acknowledged per epoch second (the per-second
    series of a play's summary)."""

    def acked_seconds(self) -> AckedSeconds: ...


@runtime_checkable
class TracksAcknowledged(Protocol):
    """A sink or producer that knows each partition's acknowledged end offset (verify's
    acknowledged-stored check)."""

    def acknowledged_offsets(self) -> AcknowledgedEnds: ...


def stats_of(sinks: Iterable[object]) -> SinkStats:
    """The sum of what ``sinks`` report (sinks that do not count add nothing)."""
    return SinkStats.total(s.stats() for s in sinks if isinstance(s, ReportsStats))


def acked_seconds(sink: object) -> AckedSeconds:
    """What ``sink`` saw acknowledged per second; empty for sinks that do not count it."""
    return sink.acked_seconds() if isinstance(sink, CountsAckedSeconds) else {}


def merge_seconds(parts: Iterable[AckedSeconds]) -> AckedSeconds:
    """Several sinks' seconds added up."""
    merged: dict[int, tuple[int, int]] = {}
    for part in parts:
        for second, (messages, size) in part.items():
            m, b = merged.get(second, (0, 0))
            merged[second] = (m + messages, b + size)
    return dict(sorted(merged.items()))


def acknowledged_ends(tracker: object) -> AcknowledgedEnds:
    """What ``tracker`` saw acknowledged; empty for sinks and producers that do not track it."""
    return tracker.acknowledged_offsets() if isinstance(tracker, TracksAcknowledged) else {}


def merge_ends(*parts: AcknowledgedEnds) -> AcknowledgedEnds:
    """Ends of several producers writing the same partitions: the furthest of each."""
    merged: AcknowledgedEnds = {}
    for part in parts:
        for key, end in part.items():
            if end > merged.get(key, 0):
                merged[key] = end
    return merged


@runtime_checkable
class NotifiesAcks(Protocol):
    """A sink that calls its listeners after acknowledgements arrive (on the event loop), so a
    player draining to a checkpoint awaits acks instead of polling."""

    def add_ack_listener(self, listener: Callable[[], None]) -> None: ...


@runtime_checkable
class WritesBootstraps(Protocol):
    """A sink that writes a BOOTSTRAP on request, in order with the transactions handed over
    before and after (a Spark partition owner's planned BOOTSTRAPs; its own cadence is off)."""

    def write_bootstrap(self, send: BootstrapSend) -> None: ...
