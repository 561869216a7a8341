"""Progress of a Spark play on the driver: the phase (session, survey, stage one, writing)
and, while the partition owners write, the rows they had acknowledged.

Spark reports tasks, not rows, until a task ends, so each owner writes its counts to a small
file beside the stop marker every REPORT_INTERVAL_S (``progress_path``), which reaches the
executors of a local master or of a cluster on the driver's machine, as the marker does;
elsewhere the line shows the owners' tasks only.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

REPORT_INTERVAL_S = 0.5
OnPhase = Callable[[str], None]


def progress_path(marker: str, owner: int) -> Path:
    return Path(marker).parent / f"owner-{owner}.progress"


def progress_paths(marker: str) -> list[Path]:
    """Every owner's progress file so far."""
    return sorted(Path(marker).parent.glob("owner-*.progress"))


async def report_progress(path: Path, acknowledged: Callable[[], int]) -> None:
    """In an owner, until cancelled: write the rows acknowledged so far to ``path`` (and once
    more when cancelled)."""
    try:
        while True:
            _write(path, acknowledged())
            await asyncio.sleep(REPORT_INTERVAL_S)
    finally:  # cancelled once the sinks closed: the final count
        _write(path, acknowledged())


def _write(path: Path, rows: int) -> None:
    temporary = path.with_suffix(".tmp")
    with contextlib.suppress(OSError):  # the play may have ended and removed the folder
        temporary.write_text(str(rows))
        os.replace(temporary, path)


class SparkProgress:
    """Calls ``on_phase`` with one line: the phase the driver set, the running stage's tasks,
    and, once owners write, the rows acknowledged and their rate."""

    def __init__(self, on_phase: OnPhase | None, marker: str | None) -> None:
        self._on_phase, self._marker = on_phase, marker
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
            line = self._line()
            if line and self._on_phase is not None:
                self._on_phase(line)

    def _line(self) -> str:
        tracker = self._context.statusTracker()
        owners = self._owners_stage(tracker)
        if owners is not None and owners.numActiveTasks + owners.numCompletedTasks > 0:
            return self._writing(owners)
        stages = [tracker.getStageInfo(s) for s in tracker.getActiveStageIds()]
        done = sum(s.numCompletedTasks for s in stages if s is not None)
        total = sum(s.numTasks for s in stages if s is not None)
        return f"{self._phase}: {done}/{total} tasks" if total else self._phase

    def _writing(self, owners: Any) -> str:
        now = time.monotonic()
        self._writing_since = self._writing_since or now
        line = f"writing: {owners.numCompletedTasks}/{owners.numTasks} owner tasks done"
        if self._marker is None:
            return line
        acked = self._acknowledged()
        rate = acked / (now - self._writing_since) if now > self._writing_since else 0.0
        return f"{line}, {acked:,} rows acknowledged, {rate:,.0f} rows/s"

    def _acknowledged(self) -> int:
        """Every owner's count (a task may play several owners)."""
        assert self._marker is not None
        total = 0
        for path in progress_paths(self._marker):
            with contextlib.suppress(OSError, ValueError):
                total += int(path.read_text())
        return total

    def _owners_stage(self, tracker: Any) -> Any:
        for job in tracker.getJobIdsForGroup(self._group):
            info = tracker.getJobInfo(job)
            if info is not None and info.stageIds:
                return tracker.getStageInfo(max(info.stageIds))
        return None
