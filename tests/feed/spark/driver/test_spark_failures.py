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
    """Over 8 MB, the feed is read in two splits; cut to a third after the survey, the
    second split starts past its end (Hadoop's ``Cannot seek after EOF``) or the first one ends
    mid-line (the line named): either way one line, naming the feed."""
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
    seek = cause.startswith("the Spark job failed: java.io.EOFException: Cannot seek after EOF")
    cut_line = cause.startswith(f"{feed.name}:") and "invalid JSON" in cause
    assert seek or cut_line, cause
    assert "\n" not in cause and feed.name in cause


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
