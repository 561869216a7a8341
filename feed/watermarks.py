"""Where watermarks go, the same on both engines: the watermark policy.

TiCDC advances its checkpoint on a 1 s ticker while the changefeed runs, so a consumer that
flushes on WATERMARKs sees progress all along. A play has no wall-clock run to tick in, so the
ticker runs in commit time, with one rule for idle stretches:

- for every interval of commit time (``--watermark-interval``, 1 s by default) that holds a
  record of the feed, except the first, a point W = the last TSO before that interval starts:
  everything before it is complete. Intervals without records get no point of their own, so an
  idle hour of commit time costs one WATERMARK, not 3,600;
- every ``resolved`` record of the feed is a point at its own ts;
- the last commit ts of the feed is the final point.

A player writes the WATERMARK of a point once everything at or below it is acknowledged, and
only then moves a feed clock to the end of the point's interval (``interval_end_ts``), so
``buildTs`` and the sinks' timers read the same time whatever the engine or its timing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from tisink.feed.format.records import FeedDDL, FeedRecord, FeedRow
from tisink.feed.play_records import PlayRecord, RowsStart, WatermarkPoint
from tisink.model.tso import LOGICAL_BITS, physical_ms


def point_before(ms: int) -> int:
    """The last TSO before Unix time ``ms``: the watermark of the interval ending at ``ms``."""
    return (ms << LOGICAL_BITS) - 1


def interval_of(ts: int, interval_ms: int) -> int:
    """The index of the commit-time interval holding ``ts``."""
    return physical_ms(ts) // interval_ms


def interval_end_ts(ts: int, interval_ms: int) -> int:
    """The TSO of the end of the commit-time interval that follows ``ts``: what a feed clock
    reads between the watermark at ``ts`` and the next one."""
    ms = (physical_ms(ts) + 1) // interval_ms * interval_ms + interval_ms
    return ms << LOGICAL_BITS


def points_of_intervals(intervals: Iterable[int], interval_ms: int) -> list[int]:
    """The grid points of a feed whose records fall in ``intervals`` (indices): one before each
    interval that holds records, the first excepted, in order."""
    _check(interval_ms)
    ordered = sorted(set(intervals))
    return [point_before(k * interval_ms) for k in ordered[1:]]


def record_ts(record: FeedRecord) -> int:
    if type(record) is FeedRow:
        return record.row.commit_ts
    if type(record) is FeedDDL:
        return record.commit_ts
    return record.ts  # type: ignore[union-attr]


def with_watermark_points(records: Iterable[FeedRecord], interval_ms: int) -> Iterator[PlayRecord]:
    """``records`` with the policy's points (a grid point before the first record of each later
    interval, the final point after the last record) and a
    ``RowsStart`` before the first row: what the inline player plays."""
    _check(interval_ms)
    current: int | None = None
    last_ts = 0
    started = False
    row_type = FeedRow
    for record in records:
        ts = record.row.commit_ts if type(record) is row_type else record_ts(record)
        k = (ts >> LOGICAL_BITS) // interval_ms
        if k != current:
            if current is None:
                current = k
            elif k > current:
                current = k
                yield WatermarkPoint(point_before(k * interval_ms))
        if not started and type(record) is row_type:
            started = True
            yield RowsStart(ts)
        if ts > last_ts:
            last_ts = ts
        yield record
    if current is not None:
        yield WatermarkPoint(last_ts)


def _check(interval_ms: int) -> None:
    if interval_ms <= 0:
        raise ValueError(f"watermark interval must be positive, got {interval_ms} ms")
