"""A Spark job that fails is reported in one line naming the root cause, on real local Spark."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyspark")

import tisink.feed.spark.driver.run as spark_run
from tisink.feed.play_spec import PlaySpec
from tisink.feed.spark import SparkPlayError, run_spark_play
from tisink.feed.workload import generate_feed


def test_a_feed_cut_short_after_the_survey_names_the_cause(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over 8 MB, the feed is read in two splits; cut to a third after the survey, the first
    split ends mid-line (the line named) and the second starts past the file's end (no
    lines): one line, naming the feed and its line."""
    feed = tmp_path / "feed.jsonl"
    generate_feed("demo", 3, 30000, feed)
    assert feed.stat().st_size > 8_000_000

    class CutAfterSurvey(spark_run.FeedInput):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            data = feed.read_bytes()
            feed.write_bytes(data[: len(data) // 3])

    monkeypatch.setattr(spark_run, "FeedInput", CutAfterSurvey)
    with pytest.raises(SparkPlayError) as failed:
        run_spark_play(PlaySpec(feed=feed, sink_uri="blackhole://", master="local[2]"))
    cause = str(failed.value.cause)
    assert cause.startswith(f"{feed.name}:") and "invalid JSON" in cause, cause
    assert "\n" not in cause


def test_a_python_workers_error_is_its_last_line_and_a_tasks_error_its_own() -> None:
    from tisink.feed.spark.driver.failures import job_failure

    header = (
        "An error occurred while calling o1.collect.\n: org.apache.spark.SparkException: Job "
        "aborted due to stage failure: Task 0 in stage 1.0 failed 1 times, most recent failure: "
        "Lost task 0.0 in stage 1.0 (TID 1) (127.0.0.1 executor driver): "
    )
    python = (
        "org.apache.spark.api.python.PythonException: Traceback (most recent call last):\n"
        '  File "worker.py", line 1, in main\n    raise ValueError("no such table")\n'
        "ValueError: no such table\n\n\tat org.apache.spark.api.python.X.y(X.scala:1)\n"
    )
    assert job_failure(RuntimeError(header + python)) == "ValueError: no such table"
    java = "java.io.IOException: disk full\n\tat java.io.X.y(X.java:1)\n"
    assert job_failure(RuntimeError(header + java)) == "java.io.IOException: disk full"


def test_a_fatal_jvm_error_is_the_cause_with_a_hint_for_memory() -> None:
    """The JVM's fatal error, logged before the job failed, names the cause (the job's own
    error names only the context's shutdown), with how to give Spark more memory."""
    from tisink.feed.spark.driver.failures import HEAP_HINT, job_failure
    from tisink.feed.spark.driver.jvm_output import LineRouter, take_fatal_error

    take_fatal_error()
    LineRouter().route("java.lang.OutOfMemoryError: Java heap space\n")
    shutdown = RuntimeError("SparkContext was shut down")
    assert job_failure(shutdown) == "java.lang.OutOfMemoryError: Java heap space" + HEAP_HINT
    assert job_failure(shutdown) == "SparkContext was shut down"  # taken: the next has its own
