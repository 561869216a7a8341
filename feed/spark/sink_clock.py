"""Time for a partition owner under the feed clock: it moves only at watermarks.

Between two watermark points the feed clock reads the end of the interval the rows belong to,
so every ``buildTs`` and every timer reading is the same whatever the timing. When it moves,
the MQ sink's timers (BOOTSTRAP cadence, idle-partition HEARTBEATs) must fire at that very place
in the stream rather than at the worker's next wall-clock tick: an empty transaction makes the
sink's worker run a batch that writes nothing, after which it always runs its timers.
"""

from __future__ import annotations

import asyncio
from typing import Any

from tisink.eventsink.base import CallbackableEvent, EventSink, StateRef
from tisink.model.events import SingleTableTxn
from tisink.model.table import TableInfo
from tisink.model.tso import LOGICAL_BITS, physical_ms


def interval_end_ts(ts: int, interval_ms: int) -> int:
    """The TSO of the end of the commit-time interval that follows ``ts``: what the feed clock
    reads between the watermark at ``ts`` and the next one."""
    ms = (physical_ms(ts) + 1) // interval_ms * interval_ms + interval_ms
    return ms << LOGICAL_BITS


async def run_sink_timers(event_sink: EventSink[Any], table: TableInfo) -> None:
    """Have the MQ sink run its timers now; ``table`` is any table (the transaction is empty)."""
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    txn = SingleTableTxn(0, 0, table, [])
    event_sink.write_events([CallbackableEvent(txn, lambda: done.set_result(None), StateRef())])
    await done
