"""A Spark partition owner's player: the shared ``Player`` over one partition's records.

The owner gets its partition's rows, the DDLs of its topic, the watermark points and the start
of rows, ordered by (commitTs, feed order) (``plan.owner_events``). What differs from the
inline engine is only where those come from, which tables are live at a point (the plan knows
every DDL, the owner sees only its topic's) and the order of a transaction whose UPDATE stage
one split (TiCDC's: the DELETE halves first).
"""

from __future__ import annotations

from collections.abc import Set
from typing import Any

from tisink.core.clock import Clock
from tisink.ddlsink.base import DDLSink
from tisink.eventsink.base import EventSink
from tisink.feed.driver import MakeTableSink
from tisink.feed.live_tables import LiveTables
from tisink.feed.pacing import Pacer
from tisink.feed.player import Player
from tisink.feed.spark.tasks.routing import in_split_order
from tisink.model.events import RowChangedEvent


def partition_player(
    event_sink: EventSink[Any],
    ddl_sink: DDLSink,
    make_table_sink: MakeTableSink,
    *,
    live_tables: LiveTables,
    clock: Clock,
    interval_ms: int,
    split_txns: Set[tuple[int, int]] = frozenset(),
    splits_later: bool = False,
    pacer: Pacer | None = None,
) -> Player:
    """The player of one partition owner. ``splits_later``: ``split_txns`` grows while the
    rows stream (a task that routes as it plays adds a transaction before its rows arrive)."""

    def order(table_id: int, rows: list[RowChangedEvent]) -> list[RowChangedEvent]:
        return in_split_order(table_id, rows, split_txns) if split_txns else rows

    return Player(
        event_sink,
        ddl_sink,
        make_table_sink,
        clock=clock,
        interval_ms=interval_ms,
        live_tables=live_tables,
        order_rows=order if split_txns or splits_later else None,
        pacer=pacer,
    )
