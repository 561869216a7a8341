"""LogDDLSink: the DDL side of the log sink, one structured log line per DDL and checkpoint.

A DDL sink is any object with the three async methods of ``tisink.plugin.DDLSink``; each
returns once the destination has the event. Logging is immediate, so this one returns at once.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from tisink.plugin.codec import Message, RowEventEncoder
from tisink.plugin.events import DDLEvent, TableInfo

LOGGER = "tisink.ddlsink.log"
"""The logger ``log://``'s DDL and checkpoint lines have always carried."""

log = logging.getLogger(LOGGER)


def _size(message: Message | None) -> int:
    """The encoded size; 0 when the protocol sends nothing for the event (Debezium and DTS
    send no message for some DDLs, and only some protocols have a WATERMARK)."""
    return message.length() if message is not None else 0


class LogDDLSink:
    """Logs DDLs and checkpoints; with an encoder it logs the encoded message's size too."""

    def __init__(
        self,
        encoder: RowEventEncoder | None = None,
        *,
        level: int = logging.INFO,
        logger: logging.Logger | None = None,
    ) -> None:
        self._encoder = encoder
        self._level = level
        self._log = logger or log
        self.ddl_count = 0
        self.checkpoint_count = 0
        self.checkpoint_ts = 0

    async def write_ddl_event(self, ddl: DDLEvent) -> None:
        fields: dict[str, object] = {
            "table": ddl.qualified_name,
            "ddl_type": ddl.ddl_type.value,
            "commit_ts": ddl.commit_ts,
            "query": ddl.query,
        }
        if self._encoder is not None:
            fields["bytes"] = _size(self._encoder.encode_ddl(ddl))
        self._log.log(self._level, "ddl %s", ddl.describe(), extra=fields)
        self.ddl_count += 1

    async def write_checkpoint_ts(self, ts: int, tables: Sequence[TableInfo]) -> None:
        """Logs only when ``ts`` advanced, like the MQ sink's watermarks."""
        if ts <= self.checkpoint_ts:
            return
        fields: dict[str, object] = {"checkpoint_ts": ts, "tables": len(tables)}
        if self._encoder is not None:
            fields["bytes"] = _size(self._encoder.encode_checkpoint(ts))
        self._log.log(self._level, "checkpoint %d", ts, extra=fields)
        self.checkpoint_ts = ts
        self.checkpoint_count += 1

    async def close(self) -> None:
        self._log.info(
            "log DDL sink closed after %d DDLs, %d checkpoints",
            self.ddl_count,
            self.checkpoint_count,
            extra={"ddls": self.ddl_count, "checkpoints": self.checkpoint_count},
        )
