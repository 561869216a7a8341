"""Delivery counters of an MQ sink: what performance runs and summaries report."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from tisink.codec.message import MessageType
from tisink.eventsink.stats import AckedSeconds, SinkStats


@dataclass(slots=True)
class MQStats:
    """Messages and bytes acknowledged by the destination, per message type, and per epoch
    second of acknowledgement (``clock`` reads epoch seconds; one reading per acknowledged
    batch)."""

    messages: dict[MessageType, int] = field(default_factory=lambda: dict.fromkeys(MessageType, 0))
    bytes: int = 0
    rows: int = 0
    txns: int = 0
    skipped_txns: int = 0
    claim_checks: int = 0
    clock: Callable[[], float] = time.time
    seconds: dict[int, list[int]] = field(default_factory=dict)
    """Epoch second -> [messages, bytes] acknowledged in it."""

    def count(self, kind: MessageType, size: int, rows: int) -> None:
        self.messages[kind] += 1
        self.bytes += size
        self.rows += rows
        self.count_second(1, size)

    def count_batch(self, kind: MessageType, copies: int, size: int) -> None:
        """``copies`` identical messages of ``size`` bytes (a broadcast to partitions)."""
        self.messages[kind] += copies
        self.bytes += copies * size
        self.count_second(copies, copies * size)

    def count_second(self, messages: int, size: int) -> None:
        """Add what was just acknowledged to the current second (the totals are the caller's)."""
        second = int(self.clock())
        counts = self.seconds.get(second)
        if counts is None:
            self.seconds[second] = [messages, size]
        else:
            counts[0] += messages
            counts[1] += size

    def per_second(self) -> AckedSeconds:
        return {second: (m, b) for second, (m, b) in sorted(self.seconds.items())}

    def snapshot(self, inflight_bytes: int = 0) -> SinkStats:
        """The counters as the SinkStats every sink reports."""
        return SinkStats(
            messages={kind: n for kind, n in self.messages.items() if n},
            bytes=self.bytes,
            rows=self.rows,
            txns=self.txns,
            skipped_txns=self.skipped_txns,
            claim_checks=self.claim_checks,
            inflight_bytes=inflight_bytes,
        )
