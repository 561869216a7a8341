"""``tisink bench`` that Ctrl-C stops within a second: the suite runs in a worker process
(``suite_worker``) in a session of its own, and this process only reads what it reports.

Run in the command's own process, a signal landed wherever the suite was: inside a Spark play
(whose SparkContext cancels its jobs and carries on), inside C code that then failed with a
``SystemError`` recorded as a failed case, or in a replay worker that shares the terminal's
process group. Here the terminal's SIGINT reaches this process alone; a stop request sends
SIGTERM to the worker's whole process group (the worker, its replay workers, Spark's JVM and
Python workers), then SIGKILL after ``GRACE_S``; the groups that had finished are kept and the
others are listed as not run.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from tisink.bench.results import BenchResult
from tisink.bench.suite import SuiteSettings, suite_meta, suite_steps
from tisink.bench.suite_worker import settings_argument
from tisink.run.interrupt import StopRequest

GRACE_S = 1.0
"""How long the worker's group has to close its brokers and folders after SIGTERM."""
POLL_S = 0.25

log = logging.getLogger(__name__)


@dataclass
class SuiteRun:
    """What the worker reported: the groups planned, those finished and their results, the
    signal that stopped the run or why it failed."""

    planned: list[str]
    results: list[BenchResult] = field(default_factory=list)
    finished: list[str] = field(default_factory=list)
    meta: dict[str, Any] | None = None
    """The worker's description of the run, sent once every group finished."""
    stopped_by: str | None = None
    failed: str | None = None

    def take(self, line: bytes) -> str | None:
        """One line of the worker's report; the name of a group starting, if it says so."""
        event = orjson.loads(line)
        if "step" in event:
            return str(event["step"])
        if "done" in event:
            self.finished.append(str(event["done"]))
            self.results += [BenchResult(**result) for result in event["results"]]
            log.info("finished %s: %d case(s)", event["done"], len(event["results"]))
        elif "meta" in event:
            self.meta = dict(event["meta"])
        return None

    @property
    def not_run(self) -> list[str]:
        return [name for name in self.planned if name not in self.finished]

    def description(self, settings: SuiteSettings, wall_s: float) -> dict[str, Any]:
        """The ``meta`` of bench.json: the worker's when it finished; else this machine's and
        the sizes, with what stopped the run and the groups it did not run."""
        if self.meta is not None and not self.not_run:
            return self.meta
        meta = suite_meta(settings)
        meta["wall_s"] = round(wall_s, 1)
        meta["stopped"] = self.stopped_by or f"failed: {self.failed}"
        meta["not_run"] = self.not_run
        return meta


def worker_command(settings: SuiteSettings) -> list[str]:
    return [sys.executable, "-m", "tisink.bench.suite_worker", settings_argument(settings)]


def run_suite_stoppable(
    settings: SuiteSettings,
    stop: StopRequest,
    step: Callable[[str], None] | None = None,
    command: Sequence[str] | None = None,
) -> tuple[SuiteRun, dict[str, Any]]:
    """Run the suite in a worker (``command``, by default ``suite_worker``) until it ends or
    ``stop`` is requested; ``step`` hears each group's name as it starts. Returns what
    finished and the run's description."""
    run = SuiteRun([each.name for each in suite_steps(settings)])
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="tisink-bench-") as scratch:
        # the worker's temporary files land here, and go with it even when it is killed
        worker = subprocess.Popen(
            list(command or worker_command(settings)),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**os.environ, "TMPDIR": scratch},
            start_new_session=True,
        )
        stop.on_stop(lambda: _signal_group(worker, signal.SIGTERM))
        try:
            _read_reports(worker, run, stop, step)
        finally:
            _end(worker)
    if stop.signum is not None:
        run.stopped_by = signal.Signals(stop.signum).name
    elif worker.returncode != 0 or run.meta is None:
        run.failed = f"the suite's worker exited with code {worker.returncode}"
    return run, run.description(settings, time.perf_counter() - started)


def _read_reports(
    worker: subprocess.Popen[bytes],
    run: SuiteRun,
    stop: StopRequest,
    step: Callable[[str], None] | None,
) -> None:
    """The worker's report lines until it closes its output or exits, or a stop is requested;
    what arrives after the request does not count."""
    assert worker.stdout is not None
    descriptor = worker.stdout.fileno()
    pending = b""
    while stop.signum is None:
        # the descriptor itself, not the pipe's buffered reader: lines a readline took into its
        # buffer would wait there until the worker wrote again
        ready, _, _ = select.select([descriptor], [], [], POLL_S)
        if not ready:
            if worker.poll() is not None:  # a child it left may hold the pipe open
                return
            continue
        chunk = os.read(descriptor, 1 << 16)
        if not chunk:
            return
        *lines, pending = (pending + chunk).split(b"\n")
        for line in lines:
            if stop.signum is not None:
                return
            name = run.take(line)
            if name is not None and step is not None:
                step(name)


def _signal_group(worker: subprocess.Popen[bytes], signum: int) -> None:
    if worker.returncode is None:
        with contextlib.suppress(ProcessLookupError):  # the group is gone already
            os.killpg(worker.pid, signum)


def _end(worker: subprocess.Popen[bytes]) -> None:
    """The worker's group gone. The worker has ended its report or been sent SIGTERM by a stop
    request; else (an error on this side) it is sent SIGTERM now. Its group (a JVM running its
    shutdown hooks, a replay worker) gets ``GRACE_S`` to exit, then SIGKILL."""
    for pipe in (worker.stdin, worker.stdout):
        if pipe is not None:
            pipe.close()
    deadline = time.monotonic() + GRACE_S
    try:
        worker.wait(GRACE_S)
    except subprocess.TimeoutExpired:
        _signal_group(worker, signal.SIGTERM)
        deadline = time.monotonic() + GRACE_S
    while _group_alive(worker.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(worker.pid, signal.SIGKILL)
    worker.wait()


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True
