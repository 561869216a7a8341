"""The live progress line of ``tisink play`` (rows, rows/s, messages, MB) on a terminal."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator

from rich.console import Console
from rich.live import Live

from tisink.feed.stats import PlayStats

Progress = Callable[[PlayStats], None] | None


@contextlib.contextmanager
def progress_display(console: Console) -> Iterator[Progress]:
    """Yield an ``on_progress`` callback that redraws one status line, or None when the
    console is not a terminal (logs and the final summary say enough there)."""
    if not console.is_terminal:
        yield None
        return
    started = time.perf_counter()
    with Live(console=console, refresh_per_second=4, transient=True) as live:

        def update(stats: PlayStats) -> None:
            elapsed = max(time.perf_counter() - started, 1e-9)
            live.update(
                f"rows {stats.rows:,}  {stats.rows / elapsed:,.0f} rows/s  "
                f"ddl {stats.ddl}  watermarks {stats.watermarks}  "
                f"feed {stats.bytes / 1e6:,.1f} MB"
            )

        yield update
