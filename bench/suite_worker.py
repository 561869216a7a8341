"""The suite in a process of its own (``python -m tisink.bench.suite_worker SETTINGS``), so that
``tisink bench`` can stop it at once on Ctrl-C: see ``tisink.bench.stoppable``.

It reports on its standard output, one JSON object a line: ``{"step": NAME}`` before a group,
``{"done": NAME, "results": [...]}`` after it and ``{"meta": {...}}`` at the end. Whatever else
writes to file descriptor 1 (a JVM, a library) goes to standard error instead, so the report
stays clean. SIGTERM ends it through ``SystemExit``, so the groups' ``with`` blocks (a broker,
a temporary folder, a replay worker) close; so does its standard input closing (the parent
``tisink bench`` is gone). The parent kills what is left after its grace.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import sys
import threading
from types import FrameType
from typing import IO, Any

import orjson

from tisink.bench.results import BenchResult
from tisink.bench.suite import SuiteSettings, run_suite


def _exit_on_signal(signum: int, _frame: FrameType | None) -> None:
    """End through ``SystemExit`` once; the parent gave up on the run, so what the closing
    groups might still say (an error while a broker closes) is not shown, and a second
    SIGTERM (standard input closing too) does not cut the cleanup short."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 2)
    os.dup2(quiet, 1)
    sys.exit(128 + signum)


def _end_with_parent() -> None:
    """Block on standard input (nothing is ever written there): when it closes, the parent is
    gone, and the suite ends as on SIGTERM."""
    sys.stdin.buffer.read()
    os.kill(os.getpid(), signal.SIGTERM)


def _send(channel: IO[bytes], event: dict[str, Any]) -> None:
    channel.write(orjson.dumps(event) + b"\n")
    channel.flush()


def settings_argument(settings: SuiteSettings) -> str:
    """The worker's one argument."""
    return orjson.dumps(dataclasses.asdict(settings)).decode()


def main(argument: str) -> None:
    settings = SuiteSettings(**orjson.loads(argument))
    channel = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    signal.signal(signal.SIGTERM, _exit_on_signal)
    threading.Thread(target=_end_with_parent, name="tisink-parent", daemon=True).start()

    def done(name: str, results: list[BenchResult]) -> None:
        _send(channel, {"done": name, "results": [dataclasses.asdict(r) for r in results]})

    _results, meta = run_suite(settings, lambda name: _send(channel, {"step": name}), done)
    _send(channel, {"meta": meta})


if __name__ == "__main__":
    main(sys.argv[1])
