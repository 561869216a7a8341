"""The live progress line of ``tisink play`` on a terminal: rows, rows/s, messages and MB
inline; on Spark, the phase (session, planning, stage one for a feed, then writing with the
rows acknowledged and their rate, in the same words as inline: ``rows_text``)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

from rich.console import Console
from rich.live import Live
from rich.text import Text

from tisink.feed.stats import PlayStats, rows_text


class ProgressLine:
    """One status line: ``__call__`` with the inline player's stats, ``phase`` with a Spark
    play's progress text or verify's; the seconds since the start count on at every refresh,
    also while a phase (Spark's session, a long stage) blocks."""

    def __init__(self) -> None:
        self._started = time.perf_counter()
        self._text = ""

    def __rich__(self) -> Text:
        return Text(f"{self._text}  ({time.perf_counter() - self._started:.0f} s)")

    def __call__(self, stats: PlayStats) -> None:
        elapsed = max(time.perf_counter() - self._started, 1e-9)
        self._text = (
            f"{rows_text(stats.rows, stats.rows / elapsed)}  "
            f"ddl {stats.ddl}  watermarks {stats.watermarks}  feed {stats.bytes / 1e6:,.1f} MB"
        )

    def phase(self, text: str) -> None:
        self._text = text


@contextlib.contextmanager
def progress_display(console: Console) -> Iterator[ProgressLine | None]:
    """Yield the status line, or None when the console is not a terminal (logs and the final
    summary say enough there)."""
    if not console.is_terminal:
        yield None
        return
    line = ProgressLine()
    with Live(line, console=console, refresh_per_second=4, transient=True):
        yield line
