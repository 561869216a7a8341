"""The Marshaller interface of the Simple Protocol (TiCDC ``simple/marshaller.go``).

One marshaller per encoding format (JSON, Avro) turns an event into the uncompressed message
body. The encoder around it owns the clock, compression, size checks and large-message
fallbacks, so marshallers stay pure functions of their arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from tisink.model.events import DDLEvent, RowChangedEvent


class Marshaller(Protocol):
    def marshal_row(
        self,
        row: RowChangedEvent,
        build_ts: int,
        *,
        handle_key_only: bool = False,
        claim_check_location: str | None = None,
    ) -> bytes:
        """A DML message; ``handle_key_only`` keeps only the handle-key columns and sets
        ``handleKeyOnly``; ``claim_check_location`` sets ``claimCheckLocation``."""
        ...

    def marshal_rows(self, rows: Sequence[RowChangedEvent], build_ts: int) -> list[bytes]:
        """``marshal_row`` of each row with its defaults: the per-transaction hot path."""
        ...

    def marshal_ddl(self, ddl: DDLEvent, build_ts: int) -> bytes:
        """A DDL message, or a BOOTSTRAP when ``ddl.is_bootstrap``."""
        ...

    def marshal_checkpoint(self, ts: int, build_ts: int) -> bytes:
        """A WATERMARK message for checkpoint ``ts``."""
        ...
