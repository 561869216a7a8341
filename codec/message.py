"""The unit a codec produces and a sink delivers: TiCDC's ``common.Message``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

Headers = tuple[tuple[str, bytes], ...]
"""Kafka record headers: ``(name, value)`` pairs, in order."""

Record = tuple[bytes | None, bytes | None] | tuple[bytes | None, bytes | None, Headers]
"""What a producer writes: ``(key, value)``, the key None for a null key and the value None for
a tombstone (TiCDC's avro DELETE); or ``(key, value,
headers)`` for a record with Kafka headers. Encoders give 2-tuples (the fast path); headers
such as DTS's ``ps`` are added where a partition's records are sent in order."""


def record_headers(record: Record) -> Headers:
    """The headers of a record; () for a plain ``(key, value)``."""
    return record[2] if len(record) == 3 else ()


def with_sequence(records: Sequence[Record], header: str, first: int) -> list[Record]:
    """``records`` numbered ``first``, ``first + 1``... in a leading header ``header`` (decimal
    text, as DTS's ``ps``), their own headers after it."""
    out: list[Record] = []
    for number, record in enumerate(records, start=first):
        headers: Headers = ((header, b"%d" % number),)
        out.append((record[0], record[1], headers + record_headers(record)))
    return out


class MessageType(StrEnum):
    DML = "DML"
    DDL = "DDL"
    BOOTSTRAP = "BOOTSTRAP"
    WATERMARK = "WATERMARK"
    HEARTBEAT = "HEARTBEAT"


@dataclass(slots=True)
class Message:
    """One encoded Kafka record. ``callback`` fires once the destination acknowledged it.

    ``claim_check`` is ``(location, payload)`` when the large-message claim-check fallback
    applied: the sink stores ``payload`` at ``location`` before it delivers this message (the
    codec itself does no I/O).
    """

    value: bytes | None
    """None: a tombstone (a null Kafka value)."""
    key: bytes | None = None
    type: MessageType = MessageType.DML
    rows: int = 0
    table: str = ""
    callback: Callable[[], None] | None = None
    claim_check: tuple[str, bytes] | None = None

    def length(self) -> int:
        """Bytes counted against ``max-message-bytes`` (before the 36-byte record overhead)."""
        return (len(self.value) if self.value else 0) + (len(self.key) if self.key else 0)

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
