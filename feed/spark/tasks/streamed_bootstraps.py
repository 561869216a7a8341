"""TiCDC's BOOTSTRAP cadence decided while the rows stream, for tasks that route every row.

``planned_bootstraps`` decides the sends once stage one counted every table's messages per
watermark interval. A task that generates the whole workload itself sees every message in
(commitTs, seq) order, so it can run the same ``BootstrapCadence`` as it goes, and an owner
can write each send before the rows that follow it, with nothing counted up front:

- a tick only reads what earlier intervals added, so the tick at the start of interval ``k``
  runs when the first message past the interval before it arrives (or at the end);
- whether a table's first message of an interval gets a BOOTSTRAP depends only on whether the
  table is new to the cadence after that tick, so ``add_event`` runs for that message at once;
  the interval's other messages (and its last table version) are added when it closes, which
  leaves the cadence in the state ``planned_bootstraps`` leaves it in.

The sends come out in the order and at the keys ``planned_bootstraps`` gives them.
"""

from __future__ import annotations

from collections.abc import Sequence

from tisink.codec.bootstrap import BootstrapCadence, BootstrapSettings
from tisink.core.clock import FixedClock
from tisink.feed.spark.bootstraps import (
    PlannedBootstrap,
    before_message,
    final_tick,
    tick_key,
)
from tisink.feed.spark.plan import Key
from tisink.model.table import TableInfo
from tisink.model.tso import physical_ms


class StreamedBootstraps:
    """The cadence over one stream of messages in key order (the router's ``CountsMessages``):
    after ``add``, ``take`` gives the sends due before that message; after ``finish``, those
    due after every message."""

    def __init__(
        self,
        settings: BootstrapSettings,
        tables: Sequence[TableInfo | None],
        topic_of: dict[int, str],
        partition_counts: dict[str, int],
        intervals: Sequence[int],
        interval_ms: int,
        last_ts: int | None = None,
    ) -> None:
        self._tables = tables
        self._last_ts = last_ts
        """The play's last watermark (``final_tick``; None: not counted)."""
        self._topic_of = topic_of
        self._counts = partition_counts
        self._grid = sorted(set(intervals))
        self._interval_ms = interval_ms
        self._clock = FixedClock((self._grid[0] + 1) * interval_ms if self._grid else 0)
        self._cadence = BootstrapCadence(settings, self._clock)
        self._next = 0
        """The grid index of the next interval to open."""
        self._open: dict[int, list[int]] = {}
        """Table id -> [messages, first ref, last ref] in the open interval."""
        self.due: list[PlannedBootstrap] = []
        """The sends decided since the last ``take`` (empty for most messages: look first)."""

    def take(self) -> list[PlannedBootstrap]:
        """The sends decided since the last ``take``, in order."""
        due, self.due = self.due, []
        return due

    def add(self, table_id: int, key: Key, ref: int) -> None:
        """One message of ``table_id`` (table version: plan DDL ``ref``) at ``key``."""
        out = self.due
        k = physical_ms(key[0]) // self._interval_ms
        if self._next == 0 or k > self._grid[self._next - 1]:
            self._advance(k, out)
        seen = self._open.get(table_id)
        if seen is not None:
            seen[0] += 1
            seen[2] = ref
            return
        self._open[table_id] = [1, ref, ref]
        topic = self._topic_of[table_id]
        table = self._tables[ref]
        assert table is not None  # rows only name DDLs with a table
        send = self._cadence.add_event(table, topic, self._counts[topic], 1)
        if send is not None:
            out.append(PlannedBootstrap(before_message(key), table_id, send))

    def add_run(self, table_id: int, key: Key, ref: int, count: int) -> None:
        """``count`` messages of ``table_id`` at one commitTs, the first at ``key``: as many
        ``add`` calls, since only a table's first message of an interval is looked at."""
        self.add(table_id, key, ref)
        if count > 1:
            self._open[table_id][0] += count - 1

    def finish(self) -> None:
        """After the last message: the ticks of the intervals left (DDLs', ``resolved``
        ones) and the one after the last watermark (``final_tick``)."""
        self._close()
        if self._grid:
            self._advance(self._grid[-1], self.due)
            if self._last_ts is not None:
                last = final_tick(self._cadence, self._clock, self._last_ts, self._interval_ms)
                self.due.extend(last)

    def _advance(self, k: int, out: list[PlannedBootstrap]) -> None:
        """Close the open interval and open every grid interval up to ``k``, ticking at each
        but the first."""
        self._close()
        grid = self._grid
        while self._next < len(grid) and grid[self._next] <= k:
            g = grid[self._next]
            self._clock.ms = (g + 1) * self._interval_ms
            if self._next:
                at = tick_key(g, self._interval_ms)
                out.extend(PlannedBootstrap(at, -1, send) for send in self._cadence.tick())
            self._next += 1

    def _close(self) -> None:
        """Add the open interval's other messages, as one ``add_event`` of the whole count
        would have (and its last table version, as ``planned_bootstraps`` does)."""
        cadence, tables = self._cadence, self._tables
        for table_id, (count, first_ref, last_ref) in self._open.items():
            topic = self._topic_of[table_id]
            partitions = self._counts[topic]
            cadence.add_event(tables[first_ref], topic, partitions, count - 1)  # type: ignore[arg-type]
            if last_ref != first_ref:
                cadence.add_event(tables[last_ref], topic, partitions, 0)  # type: ignore[arg-type]
        self._open.clear()
