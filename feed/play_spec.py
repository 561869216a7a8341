"""What a play was asked to do, checked before anything starts: the one spec that ``tisink
play`` builds from its options and both engines take (the inline player and the Spark job).

A field is named as the command's parameter that sets it and holds the value as given
(``rate`` as text or a number, ``clock`` as ``wall``/``feed``); what the engines need from it
(``pacing``, ``feed_clock``, ``watermark_interval_ms``, ``workload_rows``) is derived here.
Every field pickles, so the spec can travel to Spark executors as it is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from tisink.eventsink.faults import parse_faults
from tisink.feed.player import DEFAULT_WATERMARK_INTERVAL_MS
from tisink.feed.rate_profile import RateProfile, parse_rate_profile
from tisink.run.embedded import DEFAULT_BROKER, BrokerKind

DEFAULT_WORKLOAD = "demo"

Engine = Literal["spark", "inline"]
"""Where the players run: Spark executors, or this process's event loop."""
ClockMode = Literal["wall", "feed"]
"""The clock of ``buildTs``: real time, or the feed's commit ts (reproducible bytes)."""


@dataclass(frozen=True)
class PlaySpec:
    """What a play was asked to do; ``sink_uri`` None means the embedded broker."""

    feed: Path | None = None
    workload: str | None = None
    sink_uri: str | None = None
    config_path: Path | None = None
    """The changefeed TOML (TiCDC keys)."""
    engine: Engine = "spark"
    master: str = "local[*]"
    seed: int = 0
    rows: int | None = None
    rate: float | str | None = None
    """Rows/s, or a rate profile's stages as text (``feed/rate_profile.py``)."""
    duration_s: float | None = None
    """With ``rate`` and a workload: generate ``rate * duration_s`` rows instead of ``rows``."""
    clock: ClockMode = "wall"
    watermark_interval_s: float = DEFAULT_WATERMARK_INTERVAL_MS / 1000
    """Commit time between watermarks (TiCDC's resolved-ts cadence: 1 s)."""
    spark_archive: str = "auto"
    """On a Spark cluster: the executors' Python environment (auto, none or a packed venv)."""
    verify_after: bool = True
    append: bool = False
    """Let a file sink continue the topics an earlier run left in its folder (no verify)."""
    faults: str | None = None
    """Delivery faults to inject (``eventsink/faults``), over the changefeed's ``[sink] faults``."""
    broker: BrokerKind = DEFAULT_BROKER
    """The embedded broker started when ``sink_uri`` is None (``run/embedded.py``)."""
    pacing: float | RateProfile | None = field(init=False, default=None)
    """``rate`` parsed: what the pacer holds the play to (a steady rate or a profile)."""

    def __post_init__(self) -> None:
        """Values that cannot mean anything fail before anything starts (ValueError)."""
        if self.feed is not None and self.workload is not None:
            raise ValueError("give --feed or --workload, not both")
        if self.rows is not None and self.rows <= 0:
            raise ValueError(f"--rows must be positive, got {self.rows}")
        object.__setattr__(self, "pacing", _pacing(self.rate))
        if isinstance(self.pacing, RateProfile) and self.engine != "inline":
            raise ValueError("--rate with stages paces the inline engine (--engine inline)")
        if self.duration_s is not None:
            self._check_duration(self.duration_s)
        if self.faults is not None:
            self._check_faults(self.faults)
        interval = self.watermark_interval_s
        if not (math.isfinite(interval) and interval * 1000 >= 1):
            raise ValueError(f"--watermark-interval must be at least 0.001 s, got {interval}")

    @property
    def mean_rate(self) -> float | None:
        """Rows/s the play is held to on average (a profile's mean over one round)."""
        return self.pacing.mean if isinstance(self.pacing, RateProfile) else self.pacing

    @property
    def feed_clock(self) -> bool:
        return self.clock == "feed"

    @property
    def watermark_interval_ms(self) -> int:
        return round(self.watermark_interval_s * 1000)

    @property
    def scenario(self) -> str:
        """The workload to generate when there is no feed: the one given, else the default."""
        return self.workload or DEFAULT_WORKLOAD

    @property
    def target_uri(self) -> str:
        """The sink URI an engine plays into: a run starts the embedded broker for a spec
        without one and hands the engine the spec with the broker's URI."""
        if self.sink_uri is None:
            raise ValueError("an engine plays into a sink URI: the spec has none")
        return self.sink_uri

    @property
    def workload_rows(self) -> int | None:
        """The rows to generate: ``rows``, ``rate`` x ``duration_s``, or the scenario's."""
        rate = self.mean_rate
        if self.duration_s is not None and rate is not None:
            return max(1, round(rate * self.duration_s))
        return self.rows

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


def _pacing(rate: float | str | None) -> float | RateProfile | None:
    """``--rate``: a number of rows/s (checked positive here), or a profile's stages."""
    if rate is None:
        return None
    try:
        steady = float(rate)
    except ValueError:
        return parse_rate_profile(str(rate))  # ValueError names the stage
    if not (math.isfinite(steady) and steady > 0):
        raise ValueError(f"--rate must be a positive number of rows/s, got {steady}")
    return steady
