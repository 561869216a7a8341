"""Which partitions of an MQ sink have been idle long enough to get a HEARTBEAT.

Only protocols whose spec has ``sends_heartbeat`` (the DTS formats) use it. A partition is idle
when no DML message went to it for ``interval_ms`` by the encoder's clock, so under ``--clock
feed`` idleness is measured in commit time and a run replays the same way. Every partition of
a topic the sink has learnt about is timed from that moment, including partitions it never
writes rows to: those are the ones a DTS consumer most needs to hear from.
"""

from __future__ import annotations

from collections.abc import Iterable

from tisink.core.clock import Clock


class IdlePartitions:
    """Last-write times per (topic, partition) and the newest commit ts written."""

    __slots__ = ("_clock", "_interval_ms", "_last", "newest_ts")

    def __init__(self, interval_ms: int, clock: Clock) -> None:
        if interval_ms <= 0:
            raise ValueError(f"heartbeat interval must be positive, got {interval_ms} ms")
        self._interval_ms = interval_ms
        self._clock = clock
        self._last: dict[tuple[str, int], int] = {}
        self.newest_ts = 0
        """Where a HEARTBEAT sits in the stream: after the newest rows the sink wrote."""

    def watch(self, topic: str, partitions: int) -> None:
        """Start timing the partitions of ``topic`` not timed yet (a topic seen for the first
        time, or one that grew)."""
        now = self._clock.now_ms()
        for partition in range(partitions):
            self._last.setdefault((topic, partition), now)

    def written(self, topic: str, partitions: Iterable[int], commit_ts: int) -> None:
        """Rows committed at ``commit_ts`` went to ``partitions`` of ``topic``."""
        now = self._clock.now_ms()
        last = self._last
        for partition in partitions:
            last[topic, partition] = now
        if commit_ts > self.newest_ts:
            self.newest_ts = commit_ts

    def due(self) -> dict[str, list[int]]:
        """The partitions idle for the interval, by topic; their timers restart now (the
        HEARTBEAT the caller sends counts as a write)."""
        now = self._clock.now_ms()
        limit = now - self._interval_ms
        out: dict[str, list[int]] = {}
        last = self._last
        for key, at in last.items():
            if at <= limit:
                out.setdefault(key[0], []).append(key[1])
                last[key] = now
        return out
