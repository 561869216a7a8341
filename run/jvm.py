"""Java servers tisink starts (Apache Kafka, the schema registry): finding Java, starting a JVM
that dies with its parent, stopping it, and reading its log's cause of death as one line."""

from __future__ import annotations

import ctypes
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Self, TypeVar

from tisink.run.errors import RunError

log = logging.getLogger(__name__)

_TAIL_BYTES = 1_000_000
_SUMMARY_CHARS = 600
_PR_SET_PDEATHSIG = 1
_STACK_FRAME = re.compile(r"^\s+(at |\.\.\. \d+ more)")
_LOG_PREFIX = re.compile(r"^(\d\d:\d\d:\d\d\.\d+ )?\[[^\]]*\] (?=[A-Z]+ )")
"""A log line's time and thread (``HH:mm:ss.SSS [thread] ``), dropped from a quoted line (its
level stays)."""
_RECORD = re.compile(r"^(TRACE|DEBUG|INFO|WARN|ERROR) ")
_ERROR = re.compile(r"^(ERROR|FATAL) |^Exception in thread ")
PORT_ATTEMPTS = 3

T = TypeVar("T")


class PortTaken(Exception):
    """Another process bound a port between ``free_port`` and the JVM's bind: the start is
    tried again on other ports, its work dir dropped."""

    def __init__(self, error: RunError, workdir: Path) -> None:
        super().__init__(str(error))
        self.error = error
        self.workdir = workdir


def launch_on_free_ports(launch: Callable[[], T], attempts: int) -> T:
    """``launch()`` (which picks its ports each call) until one start does not lose a port to
    another process, at most ``attempts`` times; the last ``PortTaken``'s error is raised."""
    for attempt in range(1, attempts + 1):
        try:
            return launch()
        except PortTaken as exc:
            if attempt == attempts:
                raise exc.error from None
            shutil.rmtree(exc.workdir, ignore_errors=True)
            log.warning("%s; trying other ports", exc.error)
    raise AssertionError("unreachable")


class JvmServer:
    """A server JVM tisink started in a work dir of its own (Apache Kafka, the schema
    registry): its log, its stop (SIGTERM, kill after a timeout, the work dir removed) and a
    context manager that stops it. Subclasses name themselves and their log."""

    what = "a JVM"
    """How messages name the server."""
    log_name = "server.log"
    stop_timeout_s = 20.0

    def __init__(
        self, process: subprocess.Popen[bytes], port: int, workdir: Path, version: str
    ) -> None:
        self.process = process
        self.port = port
        self.workdir = workdir
        self.version = version

    @property
    def log_path(self) -> Path:
        """The JVM's output (both streams), removed with the work dir by ``stop``."""
        return self.workdir / self.log_name

    def output_tail(self) -> str:
        """The last meaningful lines the server wrote, as one line, for error messages."""
        return log_summary(self.log_path)

    def stop(self, timeout: float | None = None) -> None:
        """SIGTERM (a controlled shutdown), kill after ``timeout``, then drop the work dir."""
        terminate(self.process, self.stop_timeout_s if timeout is None else timeout, self.what)
        shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def require_java(error: type[RunError], what: str, version: int) -> str:
    """The ``java`` to run ``what`` on, or ``error`` saying it needs Java ``version``."""
    java = find_java()
    if java is None:
        raise error(f"{what} needs Java {version} or newer (java on PATH or JAVA_HOME)")
    return java


def find_java() -> str | None:
    """``$JAVA_HOME/bin/java`` or the ``java`` on PATH; None when neither is there."""
    home = os.environ.get("JAVA_HOME")
    java = str(Path(home, "bin", "java")) if home else shutil.which("java")
    return java if java and os.path.exists(java) else None


def spawn(args: Sequence[str], out: IO[bytes], cwd: Path | None = None) -> subprocess.Popen[bytes]:
    """Start ``args`` with both streams into ``out``, in a session of its own (a terminal's
    Ctrl-C reaches the caller, which then stops the server), dying with its parent on Linux."""
    return subprocess.Popen(
        list(args),
        stdin=subprocess.DEVNULL,
        stdout=out,
        stderr=subprocess.STDOUT,
        cwd=cwd,
        preexec_fn=die_with_parent if sys.platform == "linux" else None,
        start_new_session=True,
    )


def die_with_parent() -> None:
    """In the child, before exec: ask Linux to SIGTERM the JVM when its parent dies, so a
    killed test run or command leaves no server behind."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def terminate(process: subprocess.Popen[bytes], timeout: float, what: str = "a JVM") -> None:
    """SIGTERM ``process`` and wait; kill it when it ignores that for ``timeout`` seconds."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            log.warning("%s (pid %d) ignored SIGTERM; killing it", what, process.pid)
            process.kill()
            process.wait(timeout)


def log_tail(path: Path) -> str:
    """The end of a log file (its last megabyte), "" when there is none."""
    try:
        with path.open("rb") as file:
            file.seek(max(0, file.seek(0, os.SEEK_END) - _TAIL_BYTES))
            data = file.read()
    except FileNotFoundError:
        return ""
    return data.decode("utf-8", "replace")


def log_summary(path: Path) -> str:
    """A JVM log's cause of death as one line: its first error (a log record at ERROR, or an
    uncaught exception) with the exception and its root cause, and the last error when that is
    another one (what the process died of); else the log's last two lines."""
    lines = [
        _LOG_PREFIX.sub("", line.strip())
        for line in log_tail(path).splitlines()
        if line.strip() and not _STACK_FRAME.match(line)
    ]
    starts = [i for i, line in enumerate(lines) if _ERROR.search(line)]
    if not starts:
        return _one_line(" | ".join(lines[-2:])) if lines else "(no output)"
    chosen = _error_block(lines, starts[0])
    last = lines[starts[-1]]
    if last not in chosen:
        chosen.append(last)
    return _one_line(" | ".join(chosen))


def _error_block(lines: list[str], start: int) -> list[str]:
    """An error's own line, the exception under it and that exception's root cause."""
    block = [lines[start]]
    follow = []
    for line in lines[start + 1 :]:
        if _RECORD.match(line):
            break
        follow.append(line)
    if follow and not follow[0].startswith("Caused by: "):
        block.append(follow[0])
    causes = [line for line in follow if line.startswith("Caused by: ")]
    if causes:
        block.append(causes[-1])
    return block


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    if len(text) > _SUMMARY_CHARS:
        text = text[: _SUMMARY_CHARS - 1] + "…"
    return text
