"""LogSink: the smallest worked example of a custom sink. Read this file to write your own.

A sink subclasses ``tisink.plugin.BatchingSink`` and implements one coroutine,
``write_batch(batch)``: ``batch`` holds whole transactions of one table in commit order
(``batch.txns``, or ``batch.rows`` flattened). Return once the destination has the rows; raise
to fail the batch. The base class does the rest of the ``EventSink`` contract: ``write_events``
queues without blocking, callbacks fire only after ``write_batch`` returned (that is what moves
the table sink's checkpoint), rows of a closing table are acknowledged without being written,
an exception is retried when ``is_retriable`` says so (``RetriableError``) and is fatal
otherwise (the sink's ``error`` then names the table and the cause), ``wait_for_capacity``
gives the player back-pressure and ``close`` drains.

Optional hooks: ``write_ddl(ddl)`` and ``write_checkpoint(ts)`` make the same object a DDL sink
(the log scheme keeps its own, ``ddl.py``), ``on_close()`` releases resources. To make a sink
reachable from a sink URI, register a provider (``provider.py``) under the ``tisink.sinks``
entry point group; ``tests/plugin_dist/`` holds complete plugins.

This sink "delivers" a row by logging one line through stdlib logging, with the row's facts as
``extra=`` fields (structured: the CLI's structlog setup renders them as key/value or JSON).
With an encoder it also encodes each row and logs the size of the message, which makes it a
cheap way to see what a protocol costs without a broker; a row that cannot be encoded is fatal,
as in any real sink.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from tisink.plugin import Batch, BatchingSink
from tisink.plugin.codec import RowEventEncoder
from tisink.plugin.events import RowChangedEvent

LOGGER = "tisink.eventsink.log"
"""The logger ``log://``'s row lines have always carried: filters on it keep working."""

log = logging.getLogger(LOGGER)


class LogSink(BatchingSink):
    """One structured log line per row."""

    scheme = "log"

    def __init__(
        self,
        encoder: RowEventEncoder | None = None,
        *,
        level: int = logging.INFO,
        logger: logging.Logger | None = None,
    ) -> None:
        super().__init__()
        self._encoder = encoder
        self._level = level
        self._log = logger or log
        self.rows = 0
        self.bytes = 0

    async def write_batch(self, batch: Batch) -> None:
        enabled = self._log.isEnabledFor(self._level)
        table = batch.table.qualified_name
        for txn in batch.txns:
            sizes = self._sizes(txn.rows)
            for row, size in zip(txn.rows, sizes, strict=True):
                fields: dict[str, object] = {
                    "table": table,
                    "op": row.op.value,
                    "start_ts": row.start_ts,
                    "commit_ts": row.commit_ts,
                }
                if self._encoder is not None:
                    fields["bytes"] = size
                    self.bytes += size
                if enabled:
                    self._log.log(self._level, "row %s %s", fields["op"], table, extra=fields)
                self.rows += 1

    def _sizes(self, rows: Sequence[RowChangedEvent]) -> list[int]:
        """Encoded bytes per row, through the encoder interface every protocol implements
        (``encode_rows``, one call per transaction as the MQ sink makes). A protocol that frames
        a transaction (DTS: BEGIN, rows, COMMIT) gets its whole size on the first row."""
        if self._encoder is None:
            return [0] * len(rows)
        encoded = self._encoder.encode_rows(rows)
        if self._encoder.message_per_row:
            return [len(r[0] or b"") + len(r[1] or b"") for r in encoded.records]
        return [encoded.size] + [0] * (len(rows) - 1)
