"""The run summary that ``--summary-json`` writes and the console prints."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson

from tisink.eventsink.stats import SinkStats


@dataclass
class RunSummary:
    rows: int = 0
    ddl: int = 0
    messages: dict[str, int] = field(default_factory=dict)
    bytes: int = 0
    startup_s: float = 0.0
    """From the command's start to the first row sent (Spark: session, stage one, shuffle)."""
    rows_per_s: float = 0.0
    """Rows over the time from the command's start to the last acknowledgement, on every
    engine (start-up included: what a user waits for)."""
    writing_rows_per_s: float = 0.0
    """Rows over the writing phase alone: from the first row sent to the last
    acknowledgement."""
    mb_per_s: float = 0.0
    """``bytes`` (millions) over the same span as ``rows_per_s``."""
    latency_ms: dict[str, float | int] = field(default_factory=dict)
    """Row acknowledgement latency (table sink hands a row over -> its callback fires):
    count, p50, p95, p99, p999, max, mean. ``count`` is ``rows`` plus one per UPDATE that
    changed a key (written as DELETE + INSERT)."""
    rate: dict[str, Any] | None = None
    """With ``--rate``: target, achieved and spread_pct (over whole seconds), behind_s."""
    elapsed_s: float = 0.0
    """The whole command, verify included."""
    checkpoint_ts: int = 0
    verified: bool | None = None
    sink_uri: str = ""
    engine: str = "inline"
    partitions: int = 0
    """The partitions of the topics the play wrote, each topic counted whole: on Spark the
    (topic, partition)s owned by one task each, inline the topics the sink acknowledged writes
    to. 0 where not known: a sink without partitions (storage layout, SQL, log), a failed
    inline play."""
    stopped_by: str | None = None
    """The signal that stopped the play early (SIGINT, SIGTERM); None when it ran to the end."""
    error: str | None = None
    """Why the play failed (rows and checkpoint_ts then say how far it got); None on success."""
    faults: list[dict[str, Any]] = field(default_factory=list)
    """With ``--faults``: each fault injected (topic, partition, first_offset, last_offset,
    kind, commit_ts, messages), in topic, partition and offset order."""
    faults_not_fired: dict[str, str] | None = None
    """With ``--faults``: each listed kind that fired 0 times -> why (a console warning too)."""
    series: list[dict[str, Any]] = field(default_factory=list)
    """One entry per second since the command started: t, rows, messages, bytes, p99_ms; the
    rows add up to ``latency_ms["count"]``, the messages and bytes to the totals."""

    def add_sink_stats(self, stats: SinkStats) -> None:
        """Add what a sink (or a Spark play's sinks) delivered: messages by type, bytes."""
        merged = Counter(self.messages)
        for kind, count in stats.messages.items():
            if count:
                merged[kind.value] += count
        self.messages = dict(sorted(merged.items()))
        self.bytes += stats.bytes

    def set_timing(self, *, startup_s: float, sending_s: float) -> None:
        """``startup_s`` until the first row was sent; ``sending_s`` from it to the last
        acknowledgement. ``rows_per_s`` divides the rows by both, ``writing_rows_per_s`` by
        ``sending_s`` alone."""
        self.startup_s = round(startup_s, 3)
        self.rows_per_s = per_second(self.rows, startup_s + sending_s)
        self.writing_rows_per_s = per_second(self.rows, sending_s)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(orjson.dumps(self.to_dict(), option=orjson.OPT_INDENT_2) + b"\n")


def per_second(count: float, seconds: float) -> float:
    """``count`` over ``seconds``, rounded for the summary; 0 without time."""
    return round(count / seconds, 1) if seconds > 0 else 0.0
