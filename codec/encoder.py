"""The encoder interface every protocol implements (TiCDC's ``RowEventEncoder``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from codec.message import EncodedRows, Message
from model.events import DDLEvent, RowChangedEvent


class RowEventEncoder(Protocol):
    """Turns events into messages. Pure: no I/O, no shared state between instances."""

    def encode_row(self, row: RowChangedEvent) -> Message:
        """One DML message; raises MessageTooLargeError when it cannot fit."""
        ...

    def encode_rows(self, rows: Sequence[RowChangedEvent]) -> EncodedRows:
        """``encode_row`` for each row, in order: how the MQ sink encodes a transaction, so a
        protocol can read its clock and look up per-table state once per run of rows."""
        ...

    def encode_ddl(self, ddl: DDLEvent) -> Message:
        """A DDL message, or a BOOTSTRAP when ``ddl.is_bootstrap``."""
        ...

    def encode_checkpoint(self, ts: int) -> Message:
        """A WATERMARK message for checkpoint ``ts``."""
        ...
