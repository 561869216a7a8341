"""TiCDC's BOOTSTRAP cadence for partition owners: decided once for the whole feed.

TiCDC keeps one cadence per table and sink: a table's first row sends a BOOTSTRAP to every
partition of its topic, and a tick every 5 s sends one again once ``send-bootstrap-in-msg-count``
messages or ``send-bootstrap-interval-in-sec`` passed (``codec.bootstrap.BootstrapCadence``).
The inline engine runs exactly that. A partition owner sees only its partition's rows, so it
cannot count a table's messages; instead, stage one counts each table's messages per watermark
interval (``TableIntervals``), every owner receives all counts in the chunk reports, and
``planned_bootstraps`` runs the same ``BootstrapCadence`` over them, with the clock a feed clock
reads on both engines (the end of the interval; ticks at the watermark points). Each owner then
writes the sends meant for its partition at their place: before the table's first transaction
for a first-row send, right after the watermark point for a tick.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from tisink.codec.bootstrap import BootstrapCadence, BootstrapSend, BootstrapSettings
from tisink.core.clock import FeedClock, FixedClock
from tisink.feed.play_records import BootstrapAt
from tisink.feed.spark.plan import AFTER_ALL, LO_BITS, Key, PlayPlan
from tisink.feed.spark.reports import TableInterval
from tisink.feed.spark.tasks.routing import make_factory
from tisink.feed.watermarks import interval_end_ts, point_before
from tisink.model.table import TableInfo
from tisink.model.tso import LOGICAL_BITS, physical_ms
from tisink.sink.mq_sinks import new_router

TICK_SUB = 1
"""A tick's sends sort right after the watermark point they follow."""


class TableIntervals:
    """Stage one's counter: each routed message of a table, by watermark interval."""

    def __init__(self, interval_ms: int, table_ids: Sequence[int]) -> None:
        self._interval_ms = interval_ms
        self._table_ids = table_ids
        self._found: dict[tuple[int, int], list[object]] = {}

    def add(self, table_id: int, key: Key, ref: int) -> None:
        self._merge(table_id, physical_ms(key[0]) // self._interval_ms, 1, key, key, ref)

    def add_run(self, table_id: int, ts: np.ndarray, hi: int, lo: np.ndarray, ref: int) -> None:
        """One message per row of a run of ``table_id``'s rows in feed order (commitTs ``ts``
        never going back: the reader's rule), keys ``(ts, hi << LO_BITS | lo)``: counted a
        span of equal intervals at a time."""
        if not len(ts):
            return
        cells = (ts >> LOGICAL_BITS) // self._interval_ms
        ends = [*(np.flatnonzero(np.diff(cells)) + 1).tolist(), len(ts)]
        start = 0
        for end in ends:
            first = (int(ts[start]), hi << LO_BITS | int(lo[start]))
            last = (int(ts[end - 1]), hi << LO_BITS | int(lo[end - 1]))
            self._merge(table_id, int(cells[start]), end - start, first, last, ref)
            start = end

    def _merge(self, table_id: int, k: int, count: int, first: Key, last: Key, ref: int) -> None:
        found = self._found.get((table_id, k))
        if found is None:
            self._found[(table_id, k)] = [count, first, ref, last, ref]
            return
        found[0] += count  # type: ignore[operator]
        if first < found[1]:  # type: ignore[operator]
            found[1], found[2] = first, ref
        if last > found[3]:  # type: ignore[operator]
            found[3], found[4] = last, ref

    def entries(self) -> tuple[TableInterval, ...]:
        return tuple(
            TableInterval(table_id, k, *values)  # type: ignore[arg-type]
            for (table_id, k), values in self._found.items()
        )


def merge(parts: Iterable[TableInterval]) -> list[TableInterval]:
    """The whole feed's intervals from every chunk's (a table may span chunks), in order."""
    merged: dict[tuple[int, int], TableInterval] = {}
    for part in parts:
        key = (part.table_id, part.interval)
        seen = merged.get(key)
        if seen is None:
            merged[key] = part
            continue
        first, first_ref = min((seen.first, seen.first_ref), (part.first, part.first_ref))
        last, last_ref = max((seen.last, seen.last_ref), (part.last, part.last_ref))
        merged[key] = TableInterval(
            part.table_id, part.interval, seen.count + part.count, first, first_ref, last, last_ref
        )
    return sorted(merged.values(), key=lambda t: (t.interval, t.first))


@dataclass(frozen=True, slots=True)
class PlannedBootstrap:
    """A BOOTSTRAP an owner writes at ``key`` if it owns one of ``send.partitions``: right
    before the transaction of ``table_id`` at ``key[0]`` (-1, a tick: after the point)."""

    key: Key
    table_id: int
    send: BootstrapSend


def planned_bootstraps(
    settings: BootstrapSettings,
    tables: Sequence[TableInfo],
    topic_of: dict[int, str],
    partition_counts: dict[str, int],
    intervals: Sequence[int],
    interval_ms: int,
    counts: Iterable[TableInterval],
    last_ts: int | None = None,
) -> list[PlannedBootstrap]:
    """Every BOOTSTRAP the feed gets, as the inline engine's cadence sends them. ``tables`` are
    the plan's DDL tables (refs index them); ``topic_of`` gives each table id's topic;
    ``intervals`` are the watermark intervals holding any record; ``last_ts`` is the play's
    last watermark, whose tick may send more (``final_tick``; None: not counted)."""
    grid = sorted(set(intervals))
    if not grid:
        return []
    clock = FixedClock((grid[0] + 1) * interval_ms)
    cadence = BootstrapCadence(settings, clock)
    arrivals: dict[int, list[TableInterval]] = {}
    for entry in merge(counts):
        arrivals.setdefault(entry.interval, []).append(entry)
    out: list[PlannedBootstrap] = []
    for index, k in enumerate(grid):
        clock.ms = (k + 1) * interval_ms
        if index:
            at = tick_key(k, interval_ms)
            out.extend(PlannedBootstrap(at, -1, send) for send in cadence.tick())
        for entry in arrivals.get(k, ()):
            topic = topic_of[entry.table_id]
            partitions = partition_counts[topic]
            send = cadence.add_event(tables[entry.first_ref], topic, partitions, entry.count)
            if send is not None:
                out.append(PlannedBootstrap(before_message(entry.first), entry.table_id, send))
            if entry.last_ref != entry.first_ref:
                cadence.add_event(tables[entry.last_ref], topic, partitions, 0)
    if last_ts is not None:
        out.extend(final_tick(cadence, clock, last_ts, interval_ms))
    return out


def final_tick(
    cadence: BootstrapCadence, clock: FixedClock, last_ts: int, interval_ms: int
) -> list[PlannedBootstrap]:
    """The sends of the tick after the play's last watermark, at ``last_ts``: the inline
    player runs the sink's timers after every watermark, the last one too, with the feed clock
    at ``interval_end_ts`` of it. They go after every other message."""
    clock.ms = physical_ms(interval_end_ts(last_ts, interval_ms))
    at = (last_ts, AFTER_ALL + TICK_SUB)
    return [PlannedBootstrap(at, -1, send) for send in cadence.tick()]


def tick_key(interval: int, interval_ms: int) -> Key:
    """Where the tick at the start of watermark interval ``interval`` sends: right after the
    watermark point before it."""
    return point_before(interval * interval_ms), AFTER_ALL + TICK_SUB


def before_message(key: Key) -> Key:
    """The place right before a message: its record's start slot (``START_SUB``)."""
    ts, seq = key
    return ts, seq & ~3


def table_topics(plan: PlayPlan) -> dict[int, str] | None:
    """The topic of each plan table (by table id) when the play sends BOOTSTRAPs to partition
    owners; None when it does not."""
    if plan.bootstrap is None or not plan.owners:
        return None
    target = make_factory(plan.sink_uri, plan.config_text, FeedClock()).mq_target()
    if target is None:
        return None
    router = new_router(target.default_topic, target.config)
    tables = [ddl.table for ddl in plan.ddls]
    return {t.table_id: router.topic_for_table(t.schema, t.table) for t in tables if t is not None}


def owners_bootstraps(
    plan: PlayPlan, owners: Sequence[int], counts: Iterable[TableInterval]
) -> list[tuple[Key, BootstrapAt]]:
    """The planned BOOTSTRAPs of ``owners``' partitions from the tables' messages per interval
    (``counts``), as play records at their keys, each naming the owned partitions it goes to
    as the task's sinks number them (``PlayPlan.view_partitions``); none when the play sends
    no BOOTSTRAPs to owners."""
    topics = table_topics(plan)
    if plan.bootstrap is None or topics is None:
        return []
    planned = planned_bootstraps(
        plan.bootstrap,
        [ddl.table for ddl in plan.ddls],  # type: ignore[misc]  # rows only name DDLs with a table
        topics,
        plan.partition_counts,
        plan.intervals,
        plan.interval_ms,
        counts,
        plan.last_ts,
    )
    view = plan.view_partitions(owners)
    out = []
    for p in planned:
        topic = p.send.topic
        mine = tuple(view[topic, n] for n in p.send.partitions if (topic, n) in view)
        if mine:
            send = BootstrapSend(p.send.table, topic, mine)
            out.append((p.key, BootstrapAt(p.key[0], p.table_id, send)))
    return out
