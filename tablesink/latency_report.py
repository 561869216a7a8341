"""What an AckLatency recorded, in a form that crosses processes and merges (Spark executors).

Latencies are microseconds in HdrHistograms (``hdrhistogram`` from PyPI) of one shape: 1 us to
one hour at 3 significant digits, so any two add up exactly. A report holds the histogram of
every acknowledgement and, per epoch second of acknowledgement, the rows acknowledged in it and
that second's histogram, each compressed with HdrHistogram's own encoding.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from hdrh.histogram import HdrHistogram

LOWEST_US = 1
HIGHEST_US = 3_600_000_000
"""One hour: a longer latency is recorded as one hour."""
SIGNIFICANT_DIGITS = 3
PERCENTILES = {"p50": 50.0, "p95": 95.0, "p99": 99.0, "p999": 99.9}


def new_histogram() -> HdrHistogram:
    return HdrHistogram(LOWEST_US, HIGHEST_US, SIGNIFICANT_DIGITS)


def decoded(encoded: Iterable[bytes]) -> HdrHistogram:
    """One histogram holding the sum of the ``encoded`` ones."""
    total = new_histogram()
    for blob in encoded:
        total.decode_and_add(blob)
    return total


def latency_ms(histogram: HdrHistogram, sum_us: int) -> dict[str, float | int]:
    """count, p50, p95, p99, p999, max (from ``histogram``) and mean (``sum_us`` over the
    count: exact, and far cheaper than the histogram's own), in milliseconds."""
    count = histogram.get_total_count()
    if not count:
        return {"count": 0, **dict.fromkeys(PERCENTILES, 0.0), "max": 0.0, "mean": 0.0}
    values = histogram.get_percentile_to_value_dict(list(PERCENTILES.values()))
    out: dict[str, float | int] = {"count": count}
    for name, percentile in PERCENTILES.items():
        out[name] = round(values[percentile] / 1000, 3)
    out["max"] = round(histogram.get_max_value() / 1000, 3)
    out["mean"] = round(sum_us / count / 1000, 3)
    return out


@dataclass(frozen=True)
class SecondLatency:
    """The acknowledgements of one epoch second."""

    rows: int
    histogram: bytes
    """HdrHistogram encoding of this second's latencies (us)."""
    p99_us: int | None = None
    """The 99th percentile (us); None until asked for (``second_p99_ms``): a Spark owner's
    seconds are merged on the driver, so computing it in every owner would be wasted."""


@dataclass(frozen=True)
class LatencyReport:
    """The acknowledgement latencies of one recorder, or of several merged."""

    histogram: bytes = b""
    """HdrHistogram encoding of every latency (us); empty when nothing was acknowledged."""
    sum_us: int = 0
    """The sum of every row's latency (us), for the mean."""
    seconds: dict[int, SecondLatency] = field(default_factory=dict)
    """Epoch second of acknowledgement -> what was acknowledged in it."""

    @property
    def rows(self) -> int:
        return sum(second.rows for second in self.seconds.values())

    def total(self) -> HdrHistogram:
        return decoded([self.histogram] if self.histogram else [])

    def latency_ms(self) -> dict[str, float | int]:
        return latency_ms(self.total(), self.sum_us)

    def second_p99_ms(self, second: int) -> float:
        """The 99th percentile of ``second``'s latencies, in ms (0 without any)."""
        entry = self.seconds.get(second)
        if entry is None:
            return 0.0
        p99 = entry.p99_us
        if p99 is None:
            p99 = decoded([entry.histogram]).get_value_at_percentile(99.0)
        return round(p99 / 1000, 3)


def second_latency(rows: int, histogram: HdrHistogram) -> SecondLatency:
    """One second's acknowledgements; its percentile is computed when a summary asks."""
    return SecondLatency(rows, histogram.encode())


def merge_reports(reports: Iterable[LatencyReport]) -> LatencyReport:
    """One report of several recorders' (the executors of a Spark play): histograms add up,
    seconds by epoch second."""
    reports = list(reports)
    if len(reports) == 1:
        return reports[0]
    totals = [r.histogram for r in reports if r.histogram]
    by_second: dict[int, list[SecondLatency]] = {}
    for report in reports:
        for second, entry in report.seconds.items():
            by_second.setdefault(second, []).append(entry)
    seconds = {
        second: entries[0]
        if len(entries) == 1
        else second_latency(sum(e.rows for e in entries), decoded(e.histogram for e in entries))
        for second, entries in sorted(by_second.items())
    }
    total = decoded(totals).encode() if totals else b""
    return LatencyReport(total, sum(r.sum_us for r in reports), seconds)
