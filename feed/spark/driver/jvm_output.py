"""The Spark JVM's console output, through Python logging instead of straight onto the terminal.

Spark writes log4j lines and JVM notices to its stderr, which PySpark leaves on the terminal,
around tisink's progress line and summary (and as plain text where tisink logs JSON). Here the
JVM's stderr is a pipe that a thread reads line by line: log4j lines go to the logger
``tisink.feed.spark.log4j`` at their own level (the command line keeps it quiet unless asked),
lines continuing one (stack traces) follow it, the start-up notices every run prints go to
debug, and anything else (a JVM that cannot start says why there) to ``...spark.jvm`` as a
warning. The JVM's fatal errors (``java.lang.OutOfMemoryError`` and the like) are also kept:
they shut the SparkContext down, and the job's own error then names only the shutdown.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from typing import Any

SPARK_LOG = logging.getLogger("tisink.feed.spark.log4j")
JVM_LOG = logging.getLogger("tisink.feed.spark.jvm")

_LOG4J_LINE = re.compile(
    r"^\d\d/\d\d/\d\d \d\d:\d\d:\d\d (TRACE|DEBUG|INFO|WARN|ERROR|FATAL) (.*)$"
)
_CONTINUATION = re.compile(r"\s|Caused by|Suppressed:|[\w$.]+(Exception|Error|Throwable)\b")
"""What a log4j line's exception looks like: its header, indented frames, causes."""
_LEVELS = {
    "TRACE": logging.DEBUG,
    "DEBUG": logging.DEBUG,
    "INFO": logging.INFO,
    "WARN": logging.WARNING,
    "ERROR": logging.ERROR,
    "FATAL": logging.CRITICAL,
}
_NOTICES = (
    "WARNING: Using incubator modules",
    "Using Spark's default log4j profile",
    "Setting default log level to",
    "To adjust logging level use sc.setLogLevel",
)
"""What every start of the JVM prints; nothing a user can act on."""
_FATAL = re.compile(r"^(?:Caused by: )?(java\.lang\.(?:OutOfMemory|StackOverflow)Error\b.*)$")
"""The JVM errors that take the SparkContext down with them."""
_fatal_errors: list[str] = []


def take_fatal_error() -> str | None:
    """The first fatal error the JVM logged since the last call (None without one)."""
    first = _fatal_errors[0] if _fatal_errors else None
    _fatal_errors.clear()
    return first


def log4j_level() -> str:
    """The log4j level that lets through what ``SPARK_LOG`` would show, and errors at least
    (the fatal ones name why a job died)."""
    level = min(SPARK_LOG.getEffectiveLevel(), logging.ERROR)  # errors always: fatal ones
    return next(
        (name for name, value in _LEVELS.items() if value >= level and name != "TRACE"), "ERROR"
    )


class LineRouter:
    """Turns the JVM's lines into log records (one instance per stream: it remembers the level
    of the last log4j line for the lines that continue it)."""

    def __init__(self) -> None:
        self._last: int | None = None

    def route(self, line: str) -> None:
        line = line.rstrip()
        if not line:
            return
        fatal = _FATAL.match(line)
        if fatal is not None:
            _fatal_errors.append(fatal.group(1))
        match = _LOG4J_LINE.match(line)
        if match is not None:
            self._last = _LEVELS[match.group(1)]
            SPARK_LOG.log(self._last, "%s", match.group(2))
        elif self._last is not None and _CONTINUATION.match(line):
            SPARK_LOG.log(self._last, "%s", line)
        elif line.startswith(_NOTICES):
            self._last = None
            JVM_LOG.debug("%s", line)
        else:
            self._last = None
            JVM_LOG.warning("%s", line)


def _forward(fd: int) -> None:
    router = LineRouter()
    with os.fdopen(fd, "r", encoding="utf-8", errors="replace") as stream:
        for line in stream:
            router.route(line)


def launch_logged_gateway(conf: Any) -> Any:
    """PySpark's ``launch_gateway`` with the JVM's stderr forwarded to logging. The reading
    thread starts first, so a chatty JVM never blocks on a full pipe."""
    from pyspark.java_gateway import launch_gateway

    read_fd, write_fd = os.pipe()
    threading.Thread(target=_forward, args=(read_fd,), name="spark-jvm-stderr", daemon=True).start()
    try:
        return launch_gateway(conf, popen_kwargs={"stderr": write_fd})
    finally:
        os.close(write_fd)  # the JVM holds its own copy; the thread ends when the JVM does
