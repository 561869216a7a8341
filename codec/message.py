"""The unit a codec produces and a sink delivers: TiCDC's ``common.Message``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

Record = tuple[bytes | None, bytes]
"""What a producer writes: ``(key, value)``, the key None for a null key."""


class MessageType(StrEnum):
    DML = "DML"
    DDL = "DDL"
    BOOTSTRAP = "BOOTSTRAP"
    WATERMARK = "WATERMARK"


@dataclass(slots=True)
class Message:
    """One encoded Kafka record. ``callback`` fires once the destination acknowledged it.

    ``claim_check`` is ``(location, payload)`` when the large-message claim-check fallback
    applied: the sink stores ``payload`` at ``location`` before it delivers this message (the
    codec itself does no I/O).
    """

    value: bytes
    key: bytes | None = None
    type: MessageType = MessageType.DML
    rows: int = 0
    table: str = ""
    callback: Callable[[], None] | None = None
    claim_check: tuple[str, bytes] | None = None

    def length(self) -> int:
        """Bytes counted against ``max-message-bytes`` (before the 36-byte record overhead)."""
        return len(self.value) + (len(self.key) if self.key else 0)

    def record(self) -> Record:
        return (self.key, self.value)


@dataclass(slots=True)
class EncodedRows:
    """The DML messages of a run of rows, one per row in order, all of type DML with one row
    each: ``records[i]`` is row i's ``(key, value)``. The hot path's shape: no Message object
    per row, and ``size`` (keys plus values) summed while the bytes were fresh.

    ``claim_checks`` are ``(location, payload)`` pairs the sink stores before it delivers.
    """

    records: list[Record]
    size: int
    claim_checks: list[tuple[str, bytes]] = field(default_factory=list)

    @classmethod
    def of(cls, messages: Sequence[Message]) -> EncodedRows:
        """From per-row messages, for encoders that have no faster way."""
        return cls(
            [m.record() for m in messages],
            sum(m.length() for m in messages),
            [m.claim_check for m in messages if m.claim_check is not None],
        )
