"""Delivery counters of an MQ sink: what performance runs and summaries report."""

from __future__ import annotations

from dataclasses import dataclass, field

from tisink.codec.message import MessageType


@dataclass(slots=True)
class MQStats:
    """Messages and bytes acknowledged by the destination, per message type."""

    messages: dict[MessageType, int] = field(default_factory=lambda: dict.fromkeys(MessageType, 0))
    bytes: int = 0
    rows: int = 0
    txns: int = 0
    skipped_txns: int = 0
    claim_checks: int = 0

    def count(self, kind: MessageType, size: int, rows: int) -> None:
        self.messages[kind] += 1
        self.bytes += size
        self.rows += rows

    def count_batch(self, kind: MessageType, copies: int, size: int) -> None:
        """``copies`` identical messages of ``size`` bytes (a broadcast to partitions)."""
        self.messages[kind] += copies
        self.bytes += copies * size

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
