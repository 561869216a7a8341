"""TableSink: one table's buffer between the source and an event sink (spec 7.1).

Rows are buffered in commit order until a resolved ts promises no earlier row is still coming;
then the prefix with commitTs <= ts leaves the buffer as callbackable events, and the checkpoint
follows the acks through the progress tracker. Follows tiflow ``cdc/sink/tablesink``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from itertools import repeat
from operator import attrgetter
from typing import Any, Generic

from tisink.core.errors import TisinkError
from tisink.eventsink.base import CallbackableEvent, EventSink, StateRef, TableSinkState
from tisink.model.events import ResolvedTs, RowChangedEvent
from tisink.tablesink.ack_latency import AckLatency
from tisink.tablesink.appender import Appender, E, RowAppender, TxnAppender
from tisink.tablesink.errors import CorruptedRowError, TableSinkClosedError, TableSinkError
from tisink.tablesink.progress import ProgressTracker
from tisink.tablesink.split import SPLIT_KEY_UPDATES, SplitPolicy

log = logging.getLogger(__name__)

CLOSE_POLL_SECONDS = 0.01
"""How often ``close`` looks at the pending callbacks (TiCDC: 100 ms; smaller keeps tests and
short runs quick, and the check is cheap)."""

CLOSE_WARN_SECONDS = 60.0
"""After this long, ``close`` warns that callbacks are still missing (TiCDC's warnDuration)."""

_commit_ts = attrgetter("commit_ts")


class TableSink(Generic[E]):
    """Buffers one table's rows and hands them to ``event_sink`` on each resolved ts.

    The appender follows the event sink: transactions when ``event_sink.wants_txn``, rows
    otherwise. UPDATEs changing a PK or unique key are split into DELETE + INSERT as ``split``
    says (the factory's policy for the sink), never with ``output_raw_change_event``. With
    ``stop_on_corrupted`` (``corruption-handle-level = "error"``) a row marked corrupted is
    refused before it is buffered, so the checkpoint stays below it.
    The checkpoint starts
    at ``start_ts``. ``latency``, shared by a play's table sinks, records how long each flushed
    row waits for its callback. Not thread-safe: one caller drives a table sink (acks may come
    from anywhere).
    """

    def __init__(
        self,
        table_id: int,
        event_sink: EventSink[Any],
        *,
        start_ts: int = 0,
        output_raw_change_event: bool = False,
        split: SplitPolicy = SPLIT_KEY_UPDATES,
        latency: AckLatency | None = None,
        stop_on_corrupted: bool = False,
    ) -> None:
        self.table_id = table_id
        self._latency = latency
        self._event_sink = event_sink
        self._txns = bool(event_sink.wants_txn)
        self._appender: Appender[Any] = TxnAppender(start_ts) if self._txns else RowAppender()
        self._split = split.enabled and not output_raw_change_event
        self._split_policy = split
        self._stop_on_corrupted = stop_on_corrupted
        self._buffer: list[E] = []
        self._max_resolved = ResolvedTs.normal(start_ts)
        self._tracker = ProgressTracker(table_id, ResolvedTs.normal(start_ts))
        self._state = StateRef(TableSinkState.NORMAL)

    @property
    def state(self) -> TableSinkState:
        return self._state.state

    def append_row_changed_events(self, rows: Sequence[RowChangedEvent]) -> None:
        """Buffer ``rows`` (in commit order; raises EventOrderError otherwise)."""
        if self._state.state is not TableSinkState.NORMAL:
            raise TableSinkClosedError(f"{self._name()}: rows appended after close")
        if self._stop_on_corrupted:
            _refuse_corrupted(rows)
        self._appender.append(self._buffer, rows)

    def update_resolved_ts(self, rts: ResolvedTs) -> None:
        """Flush every buffered event with commitTs <= ``rts.ts`` to the event sink.

        Only moves forward by (ts, batch id). With nothing to flush it still records the
        resolved ts and calls ``write_events([])``, TiCDC's health check of the event sink.
        Raises the event sink's error if it died.
        """
        self._check_sink()
        if self._state.state is not TableSinkState.NORMAL:
            raise TableSinkClosedError(f"{self._name()}: resolved ts {rts.ts} after close")
        if rts <= self._max_resolved:
            return
        self._max_resolved = rts
        buffer = self._buffer
        ts = rts.ts
        if not buffer or buffer[0].commit_ts > ts:
            self._tracker.add_resolved_ts(rts)
            self._write([])
            return
        if buffer[-1].commit_ts <= ts:
            flushed = buffer
            self._buffer = []
        else:
            cut = bisect_right(buffer, ts, key=_commit_ts)
            flushed = buffer[:cut]
            del buffer[:cut]
        if self._split:
            flushed = self._appender.split_updates(flushed, self._split_policy)
        ack = self._tracker.add_events(len(flushed))
        latency = self._latency
        if latency is None:
            callbacks: Iterable[Callable[[], None]] = repeat(ack)
        elif self._txns:
            callbacks = latency.txn_callbacks(ack, flushed)  # type: ignore[arg-type]
        else:
            callbacks = latency.row_callbacks(ack)
        events = list(map(CallbackableEvent, flushed, callbacks, repeat(self._state)))
        self._tracker.add_resolved_ts(rts)
        self._write(events)

    def get_checkpoint_ts(self) -> ResolvedTs:
        """The checkpoint (use ``.resolved_mark`` for the int: ts, or ts - 1 in batch mode)."""
        if self._state.state is TableSinkState.STOPPING:
            self._check_closed()
        return self._tracker.advance()

    async def close(self) -> None:
        """Stop the table and wait until every written event's callback fired (or the event
        sink died). Cancellable: a cancelled close leaves the table STOPPING."""
        self._begin_close()
        started = time.monotonic()
        warned = False
        while not self._check_closed():
            if not warned and time.monotonic() - started > CLOSE_WARN_SECONDS:
                warned = True
                log.warning(
                    "%s: close still waits for %d callbacks after %.0f s",
                    self._name(),
                    self._tracker.pending_events(),
                    CLOSE_WARN_SECONDS,
                )
            await asyncio.sleep(CLOSE_POLL_SECONDS)

    def async_close(self) -> bool:
        """Start closing without waiting; True once fully closed (call again until it is)."""
        self._begin_close()
        return self._check_closed()

    # --- internals -----------------------------------------------------------------------

    def _begin_close(self) -> None:
        if self._state.state is TableSinkState.NORMAL:
            # freeze first: events the sink drops while stopping still ack, and must not move
            # the checkpoint past what was really delivered
            self._tracker.freeze()
            self._state.state = TableSinkState.STOPPING
            log.debug("%s: stopping at checkpoint %s", self._name(), self._tracker.advance())

    def _check_closed(self) -> bool:
        if self._state.state is TableSinkState.STOPPED:
            return True
        error = self._event_sink.error
        if error is None and self._tracker.pending_events():
            return False
        if error is not None:
            log.warning("%s: event sink is dead while closing: %s", self._name(), error)
        self._state.state = TableSinkState.STOPPED
        log.debug("%s: stopped at checkpoint %s", self._name(), self._tracker.advance())
        return True

    def _check_sink(self) -> None:
        error = self._event_sink.error
        if error is None:
            return
        if isinstance(error, TisinkError):
            raise error
        raise TableSinkError(f"{self._name()}: event sink failed: {error!r}") from error

    def _write(self, events: list[CallbackableEvent[Any]]) -> None:
        try:
            self._event_sink.write_events(events)
        except TisinkError:
            raise
        except Exception as err:
            raise TableSinkError(
                f"{self._name()}: writing {len(events)} events to the "
                f"{self._event_sink.scheme} sink failed: {err!r}"
            ) from err

    def _name(self) -> str:
        last = self._appender.last
        if last is None:
            return f"table sink {self.table_id}"
        return f"table sink {self.table_id} ({last.table.qualified_name})"


def _refuse_corrupted(rows: Sequence[RowChangedEvent]) -> None:
    """TiCDC's mounter under ``corruption-handle-level = "error"``: the first row whose
    checksum is marked corrupted stops the changefeed, named with its key."""
    for row in rows:
        checksum = row.checksum
        if checksum is not None and checksum.corrupted:
            image = row.after if row.after is not None else row.before or {}
            key = ", ".join(f"{name}={image.get(name)!r}" for name in row.table.handle_key)
            raise CorruptedRowError(
                f"{row.describe()}, key ({key}): the row is marked corrupted (its data did not "
                'match TiDB\'s checksum) and [integrity] corruption-handle-level = "error" '
                "stops the changefeed before it"
            )
