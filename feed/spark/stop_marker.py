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
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")

POLL_INTERVAL_S = 0.2
"""How often a task looks for the marker: the stop latency, at one ``stat`` per interval."""


def until_marked(records: Iterable[T], marker: str) -> Iterator[T]:
    """``records`` until the file ``marker`` exists (checked every POLL_INTERVAL_S)."""
    clock, exists = time.monotonic, os.path.exists
    next_check = clock() + POLL_INTERVAL_S
    for record in records:
        if clock() >= next_check:
            if exists(marker):
                return
            next_check = clock() + POLL_INTERVAL_S
        yield record


def shield_from_terminal(marker: str | None) -> None:
    """In a Python worker of a play that has a stop marker: ignore SIGINT from now on.

    A terminal's Ctrl-C reaches every process of its foreground group, Spark's Python workers
    too, and PySpark lets them die of it; the driver asks them to stop through the marker
    instead, so they finish (stage one) or drain (the owners)."""
    if marker is not None and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
