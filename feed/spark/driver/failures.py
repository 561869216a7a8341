"""Why a Spark job failed, in one line.

PySpark raises the JVM's exception with its whole text: a header that wraps the task's error
(``Job aborted due to stage failure: ... most recent failure: Lost task ...: <error>``), stack
frames, and ``Caused by:`` lines down to the root cause; a Python worker's error comes as its
traceback inside that text. The cause a user can act on is the root (``java.io.EOFException:
Cannot seek after EOF``), the Python error's last line, or, when the JVM shut the context down
after a fatal error (``java.lang.OutOfMemoryError``), that error from the JVM's log.
"""

from __future__ import annotations

import re

from tisink.feed.spark.driver.jvm_output import take_fatal_error

_LOST_TASK = re.compile(r"most recent failure: Lost task .*?\): ")
HEAP_HINT = (
    " (give Spark more memory: spark.driver.memory, on a local master "
    "PYSPARK_SUBMIT_ARGS='--driver-memory 4g pyspark-shell')"
)


def job_failure(err: BaseException) -> str:
    """One line naming why the job behind ``err`` failed (see the module's docstring)."""
    fatal = take_fatal_error()
    if fatal is not None:
        return fatal + (HEAP_HINT if "OutOfMemoryError" in fatal else "")
    text = str(err)
    return _python_error(text) or _root_cause(text) or type(err).__name__


def _python_error(text: str) -> str | None:
    """The last line of a Python worker's traceback inside the JVM's text."""
    if "Traceback (most recent call last):" not in text:
        return None
    lines = text.split("Traceback (most recent call last):", 1)[1].splitlines()
    last = None
    for line in lines:
        if line.startswith("\tat "):  # the JVM's frames: the traceback has ended
            break
        if line.strip() and not line[0].isspace():
            last = line.strip()
    return last


def _root_cause(text: str) -> str | None:
    """The last ``Caused by:``, else the header's task error, else the first line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    causes = [line.removeprefix("Caused by: ") for line in lines if line.startswith("Caused by: ")]
    if causes:
        return causes[-1]
    headers = [line.removeprefix(": ") for line in lines if line.startswith(": ")]
    for header in headers:
        lost = _LOST_TASK.search(header)
        return header[lost.end() :] if lost else header
    return lines[0] if lines else None
