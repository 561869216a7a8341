"""The progress line: its clock counts on while a phase blocks (Spark's session, a stage);
inline it shows the rows and their rate, and a Spark play, once its owners write, the rows
they acknowledged and their rate in the same words."""

from __future__ import annotations

import io
import re
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from rich.console import Console

from tisink.feed.spark.driver.progress import SparkProgress
from tisink.feed.spark.progress_files import progress_path
from tisink.feed.stats import PlayStats, rows_text
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


def test_the_inline_line_starts_with_the_rows_part_both_engines_share() -> None:
    line = ProgressLine()
    line(PlayStats(rows=1234, ddl=2, watermarks=3, bytes=5_000_000))
    text = str(line.__rich__())
    assert re.fullmatch(
        r"rows 1,234  [\d,]+ rows/s  ddl 2  watermarks 3  feed 5\.0 MB  \(\d+ s\)", text
    ), text
    assert rows_text(1_234_567, 2_500.4) == "rows 1,234,567  2,500 rows/s"


class Tracker:
    """Spark's status tracker for one job of one stage of two owner tasks, as a play runs."""

    def __init__(self) -> None:
        self.stage = SimpleNamespace(numActiveTasks=0, numCompletedTasks=0, numTasks=2)

    def getJobIdsForGroup(self, group: str) -> list[int]:
        return [7] if group == "owners" else []

    def getJobInfo(self, job: int) -> Any:
        return SimpleNamespace(stageIds=[3])

    def getStageInfo(self, stage: int) -> Any:
        return self.stage

    def getActiveStageIds(self) -> list[int]:
        return [3]


def _spark_progress(marker: str | None, now: list[float]) -> tuple[SparkProgress, Tracker]:
    tracker = Tracker()
    progress = SparkProgress(None, marker, clock=lambda: now[0])
    progress.phase(OWNED_PHASE)
    progress.watch(SimpleNamespace(statusTracker=lambda: tracker), "owners")
    return progress, tracker


OWNED_PHASE = "writing: every task generates the workload and writes the partitions it owns"


def test_a_spark_play_shows_the_rows_acknowledged_and_their_rate_as_the_owners_write(
    tmp_path: Path,
) -> None:
    marker = str(tmp_path / "stop")
    now = [100.0]
    progress, tracker = _spark_progress(marker, now)
    assert progress.line() == f"{OWNED_PHASE}: 0/2 tasks"
    # the owners started and report, though Spark still counts their tasks as not active
    progress_path(marker, 0).write_text("0")
    progress_path(marker, 1).write_text("0")
    assert progress.line() == "writing: rows 0  0 rows/s  (0/2 owner tasks done)"
    now[0] = 102.0
    progress_path(marker, 0).write_text("3000")
    progress_path(marker, 1).write_text("1000")
    assert progress.line() == "writing: rows 4,000  2,000 rows/s  (0/2 owner tasks done)"
    now[0] = 104.0
    tracker.stage.numCompletedTasks = 1
    progress_path(marker, 1).write_text("5000")
    assert progress.line() == "writing: rows 8,000  2,000 rows/s  (1/2 owner tasks done)"


def test_without_the_owners_reports_the_line_counts_their_tasks() -> None:
    progress, tracker = _spark_progress(None, [0.0])
    assert progress.line() == f"{OWNED_PHASE}: 0/2 tasks"
    tracker.stage.numActiveTasks = 2
    assert progress.line() == "writing: 0/2 owner tasks done"
