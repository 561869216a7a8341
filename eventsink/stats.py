"""What a sink reports about its deliveries, typed: messages by ``MessageType``, not by string keys.

Every sink that counts (the MQ DML and DDL sinks, ``BatchingSink`` and plugins built on it)
returns a ``SinkStats`` from ``stats()`` (``eventsink.capabilities.ReportsStats``); a run adds
up its sinks' (and its Spark tasks') with ``SinkStats.total``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tisink.codec.message import MessageType

AckedSeconds = dict[int, tuple[int, int]]
"""Epoch second -> (messages, bytes) the destination acknowledged in it."""
AcknowledgedEnds = dict[tuple[str, int], int]
"""(topic, partition) -> last offset the destination acknowledged + 1."""

_COUNTERS: tuple[str, ...] = (
    "bytes",
    "rows",
    "txns",
    "batches",
    "skipped_txns",
    "claim_checks",
    "retries",
    "ddls",
    "checkpoints",
    "inflight_bytes",
)


@dataclass(slots=True)
class SinkStats:
    """Counters of one sink, or the sum of several. Zero where a sink does not count."""

    messages: dict[MessageType, int] = field(default_factory=dict)
    """Messages the destination acknowledged, by type (MQ sinks)."""
    bytes: int = 0
    rows: int = 0
    txns: int = 0
    batches: int = 0
    skipped_txns: int = 0
    """Transactions of closing tables, acknowledged without being written."""
    claim_checks: int = 0
    retries: int = 0
    ddls: int = 0
    checkpoints: int = 0
    inflight_bytes: int = 0
    """Bytes handed over and not acknowledged yet, when the stats were taken."""

    def message_count(self, kind: MessageType | None = None) -> int:
        """Messages of ``kind``, or of every type."""
        if kind is None:
            return sum(self.messages.values())
        return self.messages.get(kind, 0)

    def add(self, other: SinkStats) -> None:
        """Add ``other``'s counters to these."""
        for kind, count in other.messages.items():
            self.messages[kind] = self.messages.get(kind, 0) + count
        for name in _COUNTERS:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @classmethod
    def total(cls, parts: Iterable[SinkStats]) -> SinkStats:
        out = cls()
        for part in parts:
            out.add(part)
        return out

    def to_dict(self) -> dict[str, Any]:
        """For logs and JSON: message types by name, zero counters left out."""
        out: dict[str, Any] = {
            "messages": {kind.value: n for kind, n in sorted(self.messages.items()) if n}
        }
        for item in dataclasses.fields(self):
            value = getattr(self, item.name)
            if item.name != "messages" and value:
                out[item.name] = value
        return out
