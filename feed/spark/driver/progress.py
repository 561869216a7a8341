"""Progress of a Spark play on the driver: the phase (session, survey or planning, stage one
for a feed, writing) and, while the partition owners write, the rows they had acknowledged
and their rate.

Spark reports tasks, not rows, until a task ends, so the rows come from the owners' progress
files (``progress_files.py``); where they cannot reach the driver, the line shows the owners'
tasks only.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any

from tisink.feed.spark.progress_files import REPORT_INTERVAL_S, progress_paths
from tisink.feed.stats import rows_text

OnPhase = Callable[[str], None]


class SparkProgress:
    """Calls ``on_phase`` with one line: the phase the driver set and the running stage's tasks,
    then, from the first owner's report on, the rows acknowledged and their rate since then
    (in the inline engine's words) and the owner tasks done.

    The owners' reports, not Spark's task counts, say when writing began: Spark's status
    tracker counts a task as active only after its next write to the status store (a
    heartbeat, every 10 s), so an owner that writes for several seconds was shown as
    ``0/2 tasks``."""

    def __init__(
        self,
        on_phase: OnPhase | None,
        marker: str | None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._on_phase, self._marker, self._clock = on_phase, marker, clock
        self._phase = ""
        self._context: Any = None
        self._group = ""
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="tisink-progress", daemon=True)
        self._writing_since: float | None = None

    def phase(self, text: str) -> None:
        self._phase = text
        if self._on_phase is not None:
            self._on_phase(text)

    def watch(self, context: Any, owners_group: str) -> None:
        """Follow ``context``'s stages from now on; the owners run in ``owners_group``."""
        self._context, self._group = context, owners_group
        if self._on_phase is not None:
            self._thread.start()

    def __enter__(self) -> SparkProgress:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._done.set()
        if self._thread.is_alive():
            self._thread.join()

    def _watch(self) -> None:
        while not self._done.wait(REPORT_INTERVAL_S):
            line = self.line()
            if line and self._on_phase is not None:
                self._on_phase(line)

    def line(self) -> str:
        """The line now (``watch`` first)."""
        tracker = self._context.statusTracker()
        owners = self._owners_stage(tracker)
        acknowledged = self._acknowledged()
        if acknowledged is not None:
            return self._writing(acknowledged, owners)
        if owners is not None and owners.numActiveTasks + owners.numCompletedTasks > 0:
            return f"writing: {self._tasks_done(owners)}"  # no reports: tasks only
        stages = [tracker.getStageInfo(s) for s in tracker.getActiveStageIds()]
        done = sum(s.numCompletedTasks for s in stages if s is not None)
        total = sum(s.numTasks for s in stages if s is not None)
        return f"{self._phase}: {done}/{total} tasks" if total else self._phase

    def _writing(self, acknowledged: int, owners: Any) -> str:

        now = self._clock()
        if self._writing_since is None:
            self._writing_since = now
        seconds = now - self._writing_since
        line = f"writing: {rows_text(acknowledged, acknowledged / seconds if seconds else 0.0)}"
        return line if owners is None else f"{line}  ({self._tasks_done(owners)})"

    @staticmethod
    def _tasks_done(owners: Any) -> str:
        return f"{owners.numCompletedTasks}/{owners.numTasks} owner tasks done"

    def _acknowledged(self) -> int | None:
        """Every owner's count (a task may play several owners); None before any reported."""
        if self._marker is None:
            return None
        paths = progress_paths(self._marker)
        if not paths:
            return None
        total = 0
        for path in paths:
            with contextlib.suppress(OSError, ValueError):
                total += int(path.read_text())
        return total

    def _owners_stage(self, tracker: Any) -> Any:
        for job in tracker.getJobIdsForGroup(self._group):
            info = tracker.getJobInfo(job)
            if info is not None and info.stageIds:
                return tracker.getStageInfo(max(info.stageIds))
        return None
