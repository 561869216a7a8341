"""The run summary that ``--summary-json`` writes and the console prints."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson


@dataclass
class RunSummary:
    rows: int = 0
    ddl: int = 0
    messages: dict[str, int] = field(default_factory=dict)
    bytes: int = 0
    elapsed_s: float = 0.0
    rows_per_s: float = 0.0
    checkpoint_ts: int = 0
    verified: bool | None = None
    sink_uri: str = ""
    engine: str = "inline"
    stopped_by: str | None = None
    """The signal that stopped the play early (SIGINT, SIGTERM); None when it ran to the end."""

    def add_sink_stats(self, stats: dict[str, int] | None) -> None:
        """Merge an MQ sink's ``stats()`` (``<type>_messages`` counters and ``bytes``)."""
        if not stats:
            return
        merged = Counter(self.messages)
        for key, count in stats.items():
            if key.endswith("_messages") and count:
                merged[key.removesuffix("_messages").upper()] += count
        self.messages = dict(sorted(merged.items()))
        self.bytes += int(stats.get("bytes", 0))

    def finish(self, elapsed_s: float) -> None:
        self.elapsed_s = round(elapsed_s, 3)
        self.rows_per_s = round(self.rows / elapsed_s, 1) if elapsed_s > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(orjson.dumps(self.to_dict(), option=orjson.OPT_INDENT_2) + b"\n")
