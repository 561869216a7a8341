"""Typed Spark task results: what a failed owner reports becomes the driver's error, naming the
partitions or (for bad input) the feed's file and line; results pickle as Spark sends them."""

from __future__ import annotations

import pickle

from tisink.codec.message import MessageType
from tisink.core.errors import TisinkError
from tisink.eventsink.stats import SinkStats
from tisink.feed.errors import FeedError
from tisink.feed.spark.task_result import TaskFailure, TaskResult


def test_a_failed_task_names_its_partitions() -> None:
    result = TaskResult(2, (("cdc", 1), ("cdc", 4)))
    assert result.ok
    result.failure = TaskFailure.of(RuntimeError("broker gone"), "Traceback ...")
    assert not result.ok
    cause = result.cause()
    assert type(cause) is TisinkError
    assert str(cause) == (
        "spark task 2 (topic 'cdc' partition 1, topic 'cdc' partition 4): RuntimeError: broker gone"
    )


def test_a_feed_error_is_rebuilt_with_its_place() -> None:
    err = FeedError("bad value", file="f.jsonl", line=7, table="s.t", column="c")
    result = TaskResult(0, failure=TaskFailure.of(err, ""))
    cause = result.cause()
    assert isinstance(cause, FeedError)
    assert (cause.reason, cause.file, cause.line, cause.table, cause.column) == (
        "bad value",
        "f.jsonl",
        7,
        "s.t",
        "c",
    )


def test_results_travel_through_pickle() -> None:
    result = TaskResult(
        1, (("cdc", 0),), rows=5, sink_stats=SinkStats({MessageType.DML: 5}, bytes=50)
    )
    result.acknowledged = {("cdc", 0): 6}
    back = pickle.loads(pickle.dumps(result))
    assert back == result and back.sink_stats.message_count(MessageType.DML) == 5
