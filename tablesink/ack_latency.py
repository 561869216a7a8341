"""Row acknowledgement latency: from a table sink handing rows to its event sink until their
callbacks fire.

A benchmark harness needs percentiles and a per-second view, so every table sink of a play
shares one ``AckLatency``, at a small cost per event: the table sink reads the clock once per
flush (every row of it shares that hand-off time), and a callback, fired once per event (a row,
or a whole transaction of rows for transaction sinks), reads the clock once and adds its rows
to a plain dict under its latency's histogram bucket. The HdrHistograms (one per second, one
for the run) take those counts when a second of acknowledgements is complete, once per
distinct bucket instead of once per row (recording into one costs microseconds).

Callbacks must fire on one thread at a time (the event loop, as every built-in sink does).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from itertools import repeat

from tisink.model.events import SingleTableTxn
from tisink.tablesink.latency_report import (
    HIGHEST_US,
    LatencyReport,
    SecondLatency,
    new_histogram,
    second_latency,
)

_EXACT_BELOW_US = 2048
"""HdrHistogram at 3 significant digits counts every value below this apart; above it, a
bucket spans 2**(bit_length - 11) values."""


def bucket_middle(us: int) -> int:
    """The middle of the bucket whose lowest value is ``us``."""
    return us if us < _EXACT_BELOW_US else us + (1 << (us.bit_length() - 12))


def bucket_us(us: int) -> int:
    """The lowest value of the histogram bucket ``us`` falls in: recording it instead of ``us``
    changes nothing, and lets equal buckets be counted together first."""
    if us < _EXACT_BELOW_US:
        return us
    if us > HIGHEST_US:
        us = HIGHEST_US
    shift = us.bit_length() - 11
    return us >> shift << shift


class AckLatency:
    """Records acknowledgement latencies of every table sink that shares it.

    ``clock`` is monotonic seconds (``time.perf_counter``); ``wall_offset`` turns its readings
    into epoch seconds (default: measured now), so recorders in different processes count the
    same seconds.
    """

    def __init__(
        self,
        clock: Callable[[], float] = time.perf_counter,
        wall_offset: float | None = None,
    ) -> None:
        self._clock = clock
        self._offset = time.time() - clock() if wall_offset is None else wall_offset
        self._total = new_histogram()
        self._seconds: dict[int, SecondLatency] = {}
        self._counts: dict[int, int] = {}
        """Latency bucket (us) -> rows, for the second being acknowledged."""
        self._second = 0
        self._second_end = float("-inf")
        self._sum_us = 0
        """Every latency (us) counted so far, at its bucket's middle (as HdrHistogram's mean)."""

    def row_callbacks(self, ack: Callable[[], None]) -> Iterator[Callable[[], None]]:
        """Callbacks for a flush of single rows: ``ack``, then one row's latency."""
        return repeat(self._acked(ack))

    def txn_callbacks(
        self, ack: Callable[[], None], txns: Sequence[SingleTableTxn]
    ) -> list[Callable[[], None]]:
        """Callbacks for a flush of transactions: ``ack``, then the latency of its rows."""
        acked = self._acked(ack)
        # a transaction of one row (most of a Spark partition owner's) needs no partial
        return [acked if len(txn.rows) == 1 else partial(acked, len(txn.rows)) for txn in txns]

    def batch_callback(self) -> Callable[[int], None]:
        """The callback of records handed over now as one batch (``tisink replay``): call it
        with their count once they are acknowledged."""
        return self._acked(_nothing)

    def _acked(self, ack: Callable[[], None]) -> Callable[..., None]:
        """The callback of the events handed over now: the clock is read once per call, the
        rows are counted under their latency's histogram bucket."""
        clock = self._clock
        handed = clock()

        def acked(rows: int = 1) -> None:
            ack()
            now = clock()
            if now >= self._second_end:
                self._next_second(now)
            us = round((now - handed) * 1_000_000)
            if us >= _EXACT_BELOW_US:
                us = bucket_us(us)
            counts = self._counts
            counts[us] = counts.get(us, 0) + rows

        return acked

    def _next_second(self, now: float) -> None:
        """Close the second being counted and start the one ``now`` falls in."""
        self._close_second()
        wall = now + self._offset
        self._second = int(wall // 1)
        self._second_end = self._second + 1 - self._offset

    def _close_second(self) -> None:
        if not self._counts:
            return
        second = new_histogram()
        total = self._total
        rows = 0
        for us, count in self._counts.items():
            second.record_value(us, count)
            total.record_value(us, count)
            rows += count
            self._sum_us += bucket_middle(us) * count
        earlier = self._seconds.get(self._second)
        if earlier is not None:  # acknowledged again after a report in the same second
            second.decode_and_add(earlier.histogram)
            rows += earlier.rows
        self._seconds[self._second] = second_latency(rows, second)
        self._counts = {}

    @property
    def rows(self) -> int:
        """Rows acknowledged so far (a live count, for progress)."""
        return sum(s.rows for s in self._seconds.values()) + sum(self._counts.values())

    def report(self) -> LatencyReport:
        """What was recorded so far (call once the callbacks have fired)."""
        self._close_second()
        self._second_end = float("-inf")
        total = self._total.encode() if self._total.get_total_count() else b""
        return LatencyReport(total, self._sum_us, dict(self._seconds))


def _nothing() -> None:
    """A batch's acknowledgement needs nothing beyond its latency."""
