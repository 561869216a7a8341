"""When a DTS stream gets its next CHECKPOINT record.

Every DTS format shares it. DTS writes a CHECKPOINT to every partition about every 10 s
(spec/dts-formats.md 2.4, 3.4) and consumers commit their offsets on it. The DDL sink offers
the encoder every advance of the global checkpoint; this decides which of them become a record,
by the injected clock, so a run under the feed clock is reproducible.
"""

from __future__ import annotations

from tisink.core.clock import Clock
from tisink.core.errors import ConfigError


class CheckpointCadence:
    """Due on the first offer, then once ``interval_s`` has passed since the last one sent;
    0 sends every offer."""

    __slots__ = ("_clock", "_interval_ms", "_last_ms")

    def __init__(self, interval_s: int, clock: Clock) -> None:
        if interval_s < 0:
            raise ConfigError(f"checkpoint interval must not be negative, got {interval_s}")
        self._interval_ms = interval_s * 1000
        self._clock = clock
        self._last_ms: int | None = None

    def due(self) -> bool:
        """True when a CHECKPOINT should be written now (and counts it as written)."""
        now = self._clock.now_ms()
        if self._last_ms is not None and now - self._last_ms < self._interval_ms:
            return False
        self._last_ms = now
        return True
