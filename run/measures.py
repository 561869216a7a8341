"""What every play measures beyond its totals: acknowledgement latency percentiles, MB/s, a
per-second series and, for a paced play, how steadily it held the rate.

The inputs are what the layers below recorded: the table sinks' ``LatencyReport`` (rows and
latencies per epoch second of acknowledgement) and the MQ sinks' messages and bytes per epoch
second. Seconds are counted from the second the command started in (``t`` 0), so the start-up
shows as the seconds before the first entry; every second from the first acknowledgement to
the last has an entry, idle ones with zeros.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

from tisink.eventsink.stats import AckedSeconds
from tisink.run.summary import RunSummary
from tisink.tablesink import LatencyReport


@dataclass(frozen=True)
class Measured:
    """A play's raw measurements, whatever engine recorded them."""

    latency: LatencyReport
    seconds: AckedSeconds
    """Epoch second -> (messages, bytes) acknowledged."""
    started_at: float
    """``time.time()`` when the command started: ``t`` 0."""
    sending_s: float
    """From the first row sent to the last acknowledgement."""
    rate: float | None = None
    """The rate the play was held to, if any: ``--rate``, or a profile's mean over the time
    the play ran (``Pacer.target``)."""
    behind_s: float = 0.0


def series(
    latency: LatencyReport, seconds: AckedSeconds, started_at: float
) -> list[dict[str, Any]]:
    """One entry per second, ``{t, rows, messages, bytes, p99_ms}``; the rows add up to the
    rows acknowledged, the messages and bytes to what the sinks counted."""
    keys = set(latency.seconds) | set(seconds)
    if not keys:
        return []
    origin = int(started_at // 1)
    out = []
    for second in range(min(keys), max(keys) + 1):
        entry = latency.seconds.get(second)
        messages, size = seconds.get(second, (0, 0))
        out.append(
            {
                "t": second - origin,
                "rows": entry.rows if entry is not None else 0,
                "messages": messages,
                "bytes": size,
                "p99_ms": latency.second_p99_ms(second),
            }
        )
    return out


def steadiness(entries: list[dict[str, Any]], target: float, behind_s: float) -> dict[str, Any]:
    """How a paced play held ``target`` rows/s: the mean and the spread (standard deviation,
    in % of the target) of the rows acknowledged per whole second, the first and last seconds
    left out (they are partial); and ``behind_s``, how much longer than planned it took."""
    whole = [e["rows"] for e in entries[1:-1]]
    achieved = statistics.fmean(whole) if whole else 0.0
    spread = statistics.pstdev(whole) / target * 100 if len(whole) > 1 else 0.0
    return {
        "target": target,
        "achieved": round(achieved, 1),
        "spread_pct": round(spread, 2),
        "seconds": len(whole),
        "behind_s": round(behind_s, 3),
    }


def apply_measures(summary: RunSummary, measured: Measured) -> None:
    """Fill ``summary``'s latency, MB/s, series and rate fields."""
    summary.latency_ms = measured.latency.latency_ms()
    span = summary.startup_s + measured.sending_s  # rows_per_s's: start to last ack
    if span > 0:
        summary.mb_per_s = round(summary.bytes / span / 1e6, 3)
    summary.series = series(measured.latency, measured.seconds, measured.started_at)
    if measured.rate:
        summary.rate = steadiness(summary.series, measured.rate, measured.behind_s)
