"""LogSink: the worked example of a custom event sink. Read this file to write your own.

An event sink is any object with the four members of ``eventsink.base.EventSink``:

* ``scheme`` (str) and ``wants_txn`` (bool): the table sink reads ``wants_txn`` to decide
  whether it hands you single rows (``RowChangedEvent``, like TiCDC's blackhole sink) or
  single-table transactions (``SingleTableTxn``, like TiCDC's MQ and MySQL sinks).
* ``write_events(events)``: must not block. Deliver (or queue) the events and call each
  ``event.callback()`` once the row is durable at your destination; the table sink's checkpoint
  moves only over rows whose callbacks fired, in any order.
* ``error``: None while healthy. After a fatal error keep it there and raise
  ``SinkDeadError`` from ``write_events``; never fire callbacks for rows you did not deliver.
* ``async close()``: flush and release what you hold.

Check ``event.sink_state.state`` too: rows of a table that is closing (not NORMAL) may be
dropped, but their callbacks must still fire so that the table sink can finish closing.

This sink "delivers" a row by logging one line through stdlib logging, with the row's facts as
``extra=`` fields (structured: the CLI's structlog setup renders them as key/value or JSON), so
the callback fires right away. With an encoder it also encodes each row and logs the size of
the message, which makes it a cheap way to see what a protocol costs without a broker.
To make your sink reachable from a sink URI, register a provider under the ``tisink.sinks``
entry point group (see ``sink/registry.py``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from tisink.codec.encoder import RowEventEncoder
from tisink.eventsink.base import CallbackableEvent, TableSinkState
from tisink.eventsink.errors import EventSinkError, SinkDeadError
from tisink.model.events import RowChangedEvent

log = logging.getLogger(__name__)


class LogSink:
    """One structured log line per row; callbacks fire immediately."""

    scheme = "log"
    wants_txn = False

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
        self._error: EventSinkError | None = None
        self.rows = 0
        self.bytes = 0
        self.skipped = 0

    def write_events(self, events: Sequence[CallbackableEvent[RowChangedEvent]]) -> None:
        if self._error is not None:
            raise SinkDeadError(f"log sink is dead: {self._error}") from self._error
        enabled = self._log.isEnabledFor(self._level)
        for event in events:
            if event.sink_state.state is not TableSinkState.NORMAL:
                self.skipped += 1
                event.callback()
                continue
            row = event.event
            fields = {
                "table": row.table.qualified_name,
                "op": row.op.value,
                "start_ts": row.start_ts,
                "commit_ts": row.commit_ts,
            }
            if self._encoder is not None:
                try:
                    message = self._encoder.encode_row(row)
                except Exception as err:
                    # A row that cannot be encoded is fatal, as in any real sink.
                    self._error = EventSinkError(f"log sink: encoding {row.describe()}: {err}")
                    raise self._error from err
                fields["bytes"] = message.length()
                self.bytes += message.length()
            if enabled:
                self._log.log(self._level, "row %s %s", fields["op"], fields["table"], extra=fields)
            self.rows += 1
            event.callback()

    @property
    def error(self) -> BaseException | None:
        return self._error

    async def close(self) -> None:
        self._log.info(
            "log sink closed after %d rows",
            self.rows,
            extra={"rows": self.rows, "bytes": self.bytes, "skipped": self.skipped},
        )
