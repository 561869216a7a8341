"""Delivery counters of an MQ sink: what performance runs and summaries report."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from tisink.codec.message import MessageType

AckedSeconds = dict[int, tuple[int, int]]
"""Epoch second -> (messages, bytes) the destination acknowledged in it."""


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

    def as_dict(self) -> dict[str, int]:
        out = {f"{kind.value.lower()}_messages": n for kind, n in self.messages.items()}
        out.update(
            messages=sum(self.messages.values()),
            bytes=self.bytes,
            rows=self.rows,
            txns=self.txns,
            skipped_txns=self.skipped_txns,
            claim_checks=self.claim_checks,
        )
        return out


def acked_seconds(sink: object) -> AckedSeconds:
    """What ``sink`` saw acknowledged per second, for sinks that count it (``acked_seconds``,
    the MQ sinks); empty for the others."""
    track = getattr(sink, "acked_seconds", None)
    return track() if callable(track) else {}


def merge_seconds(parts: Iterable[AckedSeconds]) -> AckedSeconds:
    """Several sinks' seconds added up."""
    merged: dict[int, tuple[int, int]] = {}
    for part in parts:
        for second, (messages, size) in part.items():
            m, b = merged.get(second, (0, 0))
            merged[second] = (m + messages, b + size)
    return dict(sorted(merged.items()))
