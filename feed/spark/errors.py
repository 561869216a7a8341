"""Errors of the Spark engine: a task (or the driver) stopped the play."""

from __future__ import annotations

from typing import Any

from tisink.feed.errors import FeedError, PlayError
from tisink.feed.stats import PlayStats
from tisink.model.errors import TisinkError


class SparkPlayError(PlayError):
    """A Spark task failed. ``cause`` is the executor's error rebuilt on the driver (a
    FeedError keeps its file, line, table and column); ``last_checkpoint_ts`` is the ts up to
    which every row of every table was acknowledged; ``task`` is the task's result dict
    (including the executor's traceback)."""

    def __init__(self, task: dict[str, Any], last_checkpoint_ts: int, stats: PlayStats) -> None:
        self.task = task
        super().__init__(_cause(task), last_checkpoint_ts, stats)


def _cause(task: dict[str, Any]) -> TisinkError:
    if task.get("reason") is not None:
        return FeedError(
            task["reason"],
            file=task.get("file"),
            line=task.get("line"),
            table=task.get("table"),
            column=task.get("column"),
        )
    return TisinkError(
        f"spark task {task.get('task')}: {task.get('error_type')}: {task.get('error')}"
    )
