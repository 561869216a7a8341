"""Errors of the Spark engine: a play it cannot plan, and a play that stopped."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tisink.core.errors import TisinkError
from tisink.feed.errors import PlayError
from tisink.feed.stats import PlayStats

if TYPE_CHECKING:
    from tisink.feed.spark.task_result import SparkRun, TaskResult


class SparkPlanError(TisinkError):
    """The play cannot run on Spark as configured (the message says what to change)."""


class SparkPlayError(PlayError):
    """The Spark play stopped. ``cause`` is the error rebuilt on the driver (a FeedError keeps
    its file, line, table and column); ``last_checkpoint_ts`` is the lowest checkpoint over the
    partitions; ``task`` is the failed owner's result (with its traceback), or None when
    the first stage found bad input and nothing was written; ``run`` is what every owner
    delivered (acknowledged rows, latency, timing) when the owners ran."""

    def __init__(
        self,
        cause: BaseException,
        last_checkpoint_ts: int,
        stats: PlayStats,
        task: TaskResult | None = None,
        run: SparkRun | None = None,
    ) -> None:
        self.task = task
        self.run = run
        super().__init__(cause, last_checkpoint_ts, stats)
