"""When an MQ sink sends HEARTBEATs, for protocols whose streams carry them.

DTS streams carry HEARTBEAT events so a consumer can tell an idle partition from a dead stream
(spec/dts-formats.md 2.4). TiDB's changefeed has no such event; tisink writes one to each
partition that has seen no DML message for the interval, by the encoder's clock (so under
``--clock feed`` idleness is measured in commit time).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class HeartbeatSettings:
    """The options of a protocol that sends heartbeats (its registry entry says
    ``sends_heartbeat``). ``heartbeat_interval_in_sec`` 0 turns them off."""

    heartbeat_interval_in_sec: int = 10

    @property
    def heartbeat_interval_ms(self) -> int | None:
        """Idle time after which a partition gets a HEARTBEAT; None when they are off."""
        interval = self.heartbeat_interval_in_sec
        return interval * 1000 if interval > 0 else None
