"""Pacing for generated workloads: ``--rate`` rows per second."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator

from tisink.feed.records import FeedRecord, FeedRow


def throttled(records: Iterable[FeedRecord], rate: float | None) -> Iterator[FeedRecord]:
    """At most ``rate`` rows per second. It sleeps inside the iterator: the player awaits
    every few hundred rows, so the sinks' acknowledgements keep flowing between sleeps."""
    if not rate:
        yield from records
        return
    started = time.monotonic()
    rows = 0
    for record in records:
        if type(record) is FeedRow:
            rows += 1
            ahead = rows / rate - (time.monotonic() - started)
            if ahead > 0.01:
                time.sleep(ahead)
        yield record
