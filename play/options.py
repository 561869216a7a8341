"""What ``tisink play`` was asked to do: the options, checked before anything starts."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from tisink.eventsink.faults import parse_faults
from tisink.feed.player import DEFAULT_WATERMARK_INTERVAL_MS
from tisink.feed.rate_profile import RateProfile, parse_rate_profile

DEFAULT_WORKLOAD = "demo"


@dataclass(frozen=True)
class PlayOptions:
    """What ``tisink play`` was asked to do; ``sink_uri`` None means the embedded broker."""

    feed: Path | None = None
    workload: str | None = None
    sink_uri: str | None = None
    config_path: Path | None = None
    engine: str = "spark"
    master: str = "local[*]"
    seed: int = 0
    rows: int | None = None
    rate: float | None = None
    feed_clock: bool = False
    verify_after: bool = True
    watermark_interval_s: float = DEFAULT_WATERMARK_INTERVAL_MS / 1000
    """Commit time between watermarks (TiCDC's resolved-ts cadence: 1 s)."""
    spark_archive: str = "auto"
    """On a Spark cluster: the executors' Python environment (auto, none or a packed venv)."""
    append: bool = False
    """Let a file sink continue the topics an earlier run left in its folder (no verify)."""
    duration_s: float | None = None
    """With ``rate`` and a workload: generate ``rate * duration_s`` rows instead of ``rows``."""
    faults: str | None = None
    """Delivery faults to inject (``eventsink/faults``), over the changefeed's ``[sink] faults``."""
    rate_profile: RateProfile | None = None
    """``--rate`` given as stages (ramp, hold, spike, idle): the pacing; ``rate`` is its mean."""

    def __post_init__(self) -> None:
        """Numbers that cannot mean anything fail before anything starts."""
        if self.feed is not None and self.workload is not None:
            raise ValueError("give --feed or --workload, not both")
        if self.rows is not None and self.rows <= 0:
            raise ValueError(f"--rows must be positive, got {self.rows}")
        if self.rate is not None and not (math.isfinite(self.rate) and self.rate > 0):
            raise ValueError(f"--rate must be a positive number of rows/s, got {self.rate}")
        if self.rate_profile is not None and self.engine != "inline":
            raise ValueError("--rate with stages paces the inline engine (--engine inline)")
        if self.duration_s is not None:
            self._check_duration(self.duration_s)
        if self.faults is not None:
            self._check_faults(self.faults)
        interval = self.watermark_interval_s
        if not (math.isfinite(interval) and interval * 1000 >= 1):
            raise ValueError(f"--watermark-interval must be at least 0.001 s, got {interval}")

    @property
    def pacing(self) -> float | RateProfile | None:
        """What the pacer holds the play to: the profile, else the steady rate."""
        return self.rate_profile or self.rate

    @property
    def watermark_interval_ms(self) -> int:
        return round(self.watermark_interval_s * 1000)

    def _check_faults(self, text: str) -> None:
        plan = parse_faults(text)  # ValueError names the item and key
        if plan.of("skew") is not None and self.engine == "spark":
            raise ValueError(
                "--faults skew needs --engine inline: it holds one partition behind the "
                "others, and a Spark task writes a single partition"
            )

    def _check_duration(self, duration: float) -> None:
        if not (math.isfinite(duration) and duration > 0):
            raise ValueError(f"--duration must be a positive number of seconds, got {duration}")
        if self.rate is None:
            raise ValueError("--duration needs --rate: the play generates rate x duration rows")
        if self.feed is not None:
            raise ValueError("--duration generates a workload; a --feed plays all its rows")
        if self.rows is not None:
            raise ValueError("give --rows or --duration, not both")

    @property
    def workload_rows(self) -> int | None:
        """The rows to generate: ``--rows``, ``--rate`` x ``--duration``, or the scenario's."""
        if self.duration_s is not None and self.rate is not None:
            return max(1, round(self.rate * self.duration_s))
        return self.rows


def parse_rate(text: str | None) -> tuple[float | None, RateProfile | None]:
    """``--rate``: a number of rows/s, or a profile's stages (``feed/rate_profile.py``):
    (the rate, or a profile's mean; the profile, or None for a steady rate)."""
    if text is None:
        return None, None
    try:
        return float(text), None  # checked with the other options
    except ValueError:
        profile = parse_rate_profile(text)  # ValueError names the stage
    return profile.mean, profile
