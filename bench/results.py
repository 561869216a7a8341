"""One line of the benchmark table, and the timing rules every group follows."""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any


@dataclass
class BenchResult:
    """``case`` of ``group`` at ``rows_per_s``, and the raw ``baseline`` measured in the same
    run on the same input (None where the group has no baseline for it)."""

    group: str
    case: str
    rows_per_s: float
    baseline: str = ""
    baseline_rows_per_s: float | None = None
    bytes_per_row: float | None = None
    p99_ms: float | None = None
    note: str = ""
    error: str = ""
    """Why the case could not be measured (its figures are then 0)."""

    @property
    def ratio(self) -> float | None:
        """rows/s as a share of the baseline's (1.0: as fast as the library alone)."""
        if not self.baseline_rows_per_s:
            return None
        return self.rows_per_s / self.baseline_rows_per_s

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        ratio = self.ratio
        out["ratio"] = None if ratio is None else round(ratio, 3)
        return out


def median_seconds(run: Callable[[], object], repeat: int, clock: Callable[[], float]) -> float:
    """The median of ``repeat`` timings of ``run``, each after a garbage collection."""
    times = []
    for _ in range(max(1, repeat)):
        gc.collect()
        started = clock()
        run()
        times.append(clock() - started)
    return statistics.median(times)


def cpu_rate(count: int, run: Callable[[], object], repeat: int) -> float:
    """Items per CPU second (process time: other processes on a shared machine do not count),
    the median of ``repeat`` runs."""
    seconds = median_seconds(run, repeat, time.process_time)
    return count / seconds if seconds > 0 else float("inf")


def loop_turn_ns() -> float:
    """The cost of an empty loop turn, to compare figures across machines."""
    turns = 2_000_000
    started = time.process_time()
    for _ in range(turns):
        pass
    return 1e9 * (time.process_time() - started) / turns
