"""The progress line: its clock counts on while a phase blocks (Spark's session, a stage)."""

from __future__ import annotations

import io
import time

from rich.console import Console

from tisink.progress import ProgressLine, progress_display


def test_the_seconds_count_on_while_a_phase_blocks() -> None:
    line = ProgressLine()
    line.phase("starting Spark (local[2])")
    first = str(line.__rich__())
    time.sleep(1.1)
    assert first == "starting Spark (local[2])  (0 s)"
    assert str(line.__rich__()) == "starting Spark (local[2])  (1 s)"


def test_a_terminal_gets_the_line_and_a_pipe_none() -> None:
    terminal = Console(file=io.StringIO(), force_terminal=True)
    with progress_display(terminal) as line:
        assert isinstance(line, ProgressLine)
    with progress_display(Console(file=io.StringIO())) as none:
        assert none is None
