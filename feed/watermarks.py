"""Where watermarks go: one at every whole interval of commit time, on both engines.

TiCDC advances its checkpoint on a 1 s ticker while the changefeed runs, so a consumer that
flushes on WATERMARKs sees progress all along. A play has no wall-clock run to tick in, so the
ticker runs in commit time: at every multiple B of the interval (Unix ms) that the feed's
commit times pass, the watermark point is W = the last TSO before B. Every partition gets the
same points, whatever engine or parallelism writes it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from tisink.feed.records import FeedDDL, FeedRecord, FeedResolved, FeedRow
from tisink.model.tso import LOGICAL_BITS, physical_ms


def point_before(ms: int) -> int:
    """The last TSO before Unix time ``ms``: the watermark of the interval ending at ``ms``."""
    return (ms << LOGICAL_BITS) - 1


def watermark_points(first_ts: int, last_ts: int, interval_ms: int) -> list[int]:
    """The points between the first and the last commit ts of a feed: W for every multiple
    B of ``interval_ms`` with first < B <= last (in ms), in order."""
    if interval_ms <= 0:
        raise ValueError(f"watermark interval must be positive, got {interval_ms} ms")
    start = physical_ms(first_ts) // interval_ms + 1
    end = physical_ms(last_ts) // interval_ms
    return [point_before(k * interval_ms) for k in range(start, end + 1)]


def _record_ts(record: FeedRecord) -> int:
    if type(record) is FeedRow:
        return record.row.commit_ts
    if type(record) is FeedDDL:
        return record.commit_ts
    return record.ts  # type: ignore[union-attr]


def with_watermark_points(
    records: Iterable[FeedRecord],
    interval_ms: int,
    observe: Callable[[int], None] | None = None,
) -> Iterator[FeedRecord]:
    """``records`` with a ``FeedResolved(W)`` before the first record past each point W, for
    a player that writes watermarks on resolved records. ``observe`` (a FeedClock's) is told
    each point first, so a player timing its watermark checks by that clock checks there."""
    if interval_ms <= 0:
        raise ValueError(f"watermark interval must be positive, got {interval_ms} ms")
    boundary: int | None = None
    for record in records:
        ms = physical_ms(_record_ts(record))
        if boundary is None:
            boundary = (ms // interval_ms + 1) * interval_ms
        while ms >= boundary:
            point = point_before(boundary)
            if observe is not None:
                observe(point)
            yield FeedResolved(point)
            boundary += interval_ms
        yield record
