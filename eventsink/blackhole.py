"""BlackholeSink: acknowledges everything at once. The floor for benchmarks of the layers above."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from tisink.eventsink.base import CallbackableEvent
from tisink.model.events import RowChangedEvent

log = logging.getLogger(__name__)


class BlackholeSink:
    """Drops rows and fires their callbacks immediately (TiCDC's blackhole row sink)."""

    scheme = "blackhole"
    wants_txn = False

    def __init__(self) -> None:
        self.rows = 0

    def write_events(self, events: Sequence[CallbackableEvent[RowChangedEvent]]) -> None:
        self.rows += len(events)
        for event in events:
            event.callback()

    @property
    def error(self) -> BaseException | None:
        return None

    async def close(self) -> None:
        log.debug("blackhole sink closed after %d rows", self.rows)
