"""PlayStats: what a play did, for the CLI summary and progress display."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from tisink.eventsink.stats import SinkStats


@dataclass(slots=True)
class PlayStats:
    rows: int = 0
    """Row records read (before any UPDATE split by the table sinks)."""
    bytes: int = 0
    """Sum of the rows' ``approximate_size`` (their feed line lengths)."""
    ddl: int = 0
    """DDLs written to the DDL sink."""
    resolved: int = 0
    """``resolved`` records read from the feed."""
    watermarks: int = 0
    """Checkpoints written to the DDL sink (each one an advance)."""
    tables: int = 0
    """Distinct tableIDs seen in DDLs and rows."""
    checkpoint_ts: int = 0
    """The last checkpoint reached by every table."""
    elapsed_s: float = 0.0
    sink_stats: list[SinkStats] = field(default_factory=list)
    """What the event and DDL sinks reported (``ReportsStats.stats()``) once closed."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def rows_text(rows: int, rows_per_s: float) -> str:
    """The rows part of a play's progress line, in the same words on both engines."""
    return f"rows {rows:,}  {rows_per_s:,.0f} rows/s"
