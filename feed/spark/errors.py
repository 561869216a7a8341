"""Errors of the Spark engine: a play it cannot plan, and a play that stopped."""

from __future__ import annotations

from typing import Any

from tisink.core.errors import TisinkError
from tisink.feed.errors import FeedError, PlayError
from tisink.feed.stats import PlayStats


class SparkPlanError(TisinkError):
    """The play cannot run on Spark as configured (the message says what to change)."""


class SparkPlayError(PlayError):
    """The Spark play stopped. ``cause`` is the error rebuilt on the driver (a FeedError keeps
    its file, line, table and column); ``last_checkpoint_ts`` is the lowest checkpoint over the
    partitions; ``task`` is the failed owner's result dict (with its traceback), or None when
    the first stage found bad input and nothing was written."""

    def __init__(
        self,
        cause: BaseException,
        last_checkpoint_ts: int,
        stats: PlayStats,
        task: dict[str, Any] | None = None,
    ) -> None:
        self.task = task
        super().__init__(cause, last_checkpoint_ts, stats)


def task_cause(task: dict[str, Any]) -> TisinkError:
    """The error a failed owner task reported, as an exception on the driver."""
    if task.get("reason") is not None:
        return FeedError(
            task["reason"],
            file=task.get("file"),
            line=task.get("line"),
            table=task.get("table"),
            column=task.get("column"),
        )
    where = f"topic {task['topic']!r} partition {task['partition']}" if task.get("topic") else ""
    return TisinkError(
        f"spark task {task.get('task')} ({where or 'all'}): "
        f"{task.get('error_type')}: {task.get('error')}"
    )
