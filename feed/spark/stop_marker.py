"""Ctrl-C on the Spark engine: the driver creates a marker file, and every partition owner
stops taking records once it sees it, then drains its sinks like a play that ran out of input.

A file is the one channel a running task can poll without Spark's help (broadcasts are
immutable, accumulators only flow back when a task ends). It reaches the executors of a local
master or of a standalone cluster on the driver's machine; elsewhere the task plays on, and a
second Ctrl-C stops the job at once.
"""

from __future__ import annotations

import os
import signal
import threading
import time
import uuid
from collections.abc import Iterable, Iterator
from types import TracebackType
from typing import Any, TypeVar

T = TypeVar("T")

POLL_INTERVAL_S = 0.2
"""How often a task looks for the marker: the stop latency, at one ``stat`` per interval."""
OWNERS_GROUP = "tisink-partition-owners"
"""The Spark job group (a prefix: one group per play) of the job whose result stage is the
partition owners."""
GRACE_S = 0.5
"""How long after the marker appears the driver looks at the owners: long enough for Spark's
status store to show an owner that started before it."""


def until_marked(records: Iterable[T], marker: str) -> Iterator[T]:
    """``records`` until the file ``marker`` exists (checked before the first record, then
    every POLL_INTERVAL_S): a task that starts after the stop writes nothing. The marker is
    checked before the next record is taken, so a record taken (and counted as handed over
    by its source) is always passed on."""
    clock, exists = time.monotonic, os.path.exists
    next_check = clock()
    pending = iter(records)
    while True:
        if clock() >= next_check:
            if exists(marker):
                return
            next_check = clock() + POLL_INTERVAL_S
        try:
            record = next(pending)
        except StopIteration:
            return
        yield record


def owners_started_path(marker: str) -> str:
    """The note an owner leaves beside the marker before it writes (``may_write``)."""
    return os.path.join(os.path.dirname(marker), "owners-started")


def may_write(marker: str | None) -> bool:
    """In a partition owner, before it writes anything: leave the note that an owner starts,
    then tell whether no stop was asked. In this order, and with the driver looking for the
    note only once the marker exists (``StartupStop``), either the driver sees the note and
    lets the owners drain, or the owner sees the marker and writes nothing: the driver never
    cancels an owner that may have written (Spark's status store, the other sign, can show a
    task that started half a second late)."""
    if marker is None:
        return True
    try:
        with open(owners_started_path(marker), "a", encoding="utf-8"):
            pass
    except OSError:  # an executor that does not share the driver's files sees no marker either
        return True
    return not os.path.exists(marker)


def shield_from_terminal(marker: str | None) -> None:
    """In a Python worker of a play that has a stop marker: ignore SIGINT from now on.

    A terminal's Ctrl-C reaches every process of its foreground group, Spark's Python workers
    too, and PySpark lets them die of it; the driver asks them to stop through the marker
    instead, so they finish (stage one) or drain (the owners)."""
    if marker is not None and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


class StoppedBeforeWriting(Exception):
    """A stop was asked before any partition owner started: the play wrote nothing."""


class StartupStop:
    """On the driver, while the play's jobs run: once the marker exists and no partition
    owner has started, cancel every job (the survey, stage one), so a stop during start-up
    ends in seconds with nothing written. Owners that started drain instead (the marker)."""

    def __init__(self, context: Any, marker: str | None) -> None:
        self._context, self._marker = context, marker
        self.group = f"{OWNERS_GROUP}-{uuid.uuid4().hex[:12]}"
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="tisink-stop", daemon=True)
        self.cancelled = False

    @property
    def requested(self) -> bool:
        return self._marker is not None and os.path.exists(self._marker)

    def check(self) -> None:
        """Before the driver starts a job: raise StoppedBeforeWriting once a stop was asked."""
        if self.requested:
            raise StoppedBeforeWriting

    def stopped_by(self, err: BaseException) -> bool:
        """Whether ``err`` is this stop: a check's, or a job this cancelled failing."""
        return isinstance(err, StoppedBeforeWriting) or self.cancelled

    def __enter__(self) -> StartupStop:
        if self._marker is not None:
            self._thread.start()
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
        while not self._done.wait(POLL_INTERVAL_S):
            if self.cancelled:  # a job the driver submitted since: its owners would not write
                if self._context.statusTracker().getActiveJobsIds():
                    self._context.cancelAllJobs()
            elif self.requested:
                if self._done.wait(GRACE_S) or self._owners_started():
                    return  # the owners drain what they took
                self.cancelled = True
                self._context.cancelAllJobs()

    def _owners_started(self) -> bool:
        """An owner's note (``may_write``: a local master, or executors that share the
        driver's files), else an owner task Spark's status store shows."""
        if self._marker is not None and os.path.exists(owners_started_path(self._marker)):
            return True
        tracker = self._context.statusTracker()
        for job in tracker.getJobIdsForGroup(self.group):
            info = tracker.getJobInfo(job)
            stage = tracker.getStageInfo(max(info.stageIds)) if info and info.stageIds else None
            if stage is None:
                continue
            if stage.numActiveTasks + stage.numCompletedTasks + stage.numFailedTasks > 0:
                return True
        return False
