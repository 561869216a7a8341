"""The unit a codec produces and a sink delivers: TiCDC's ``common.Message``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum


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
