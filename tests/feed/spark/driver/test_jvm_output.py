"""The Spark JVM's console lines as log records: log4j levels kept, start-up notices to debug,
anything unknown a warning, and the log4j level that matches the Python one."""

from __future__ import annotations

import logging

import pytest

from tisink.feed.spark.driver.jvm_output import JVM_LOG, SPARK_LOG, LineRouter, log4j_level


def records(caplog: pytest.LogCaptureFixture, lines: list[str]) -> list[tuple[str, int, str]]:
    # each logger by name: the command line sets Spark's own to ERROR (no -v), which an
    # earlier test in the same process may have left behind
    for name in ("tisink.feed.spark", SPARK_LOG.name, JVM_LOG.name):
        caplog.set_level(logging.DEBUG, logger=name)
    router = LineRouter()
    for line in lines:
        router.route(line + "\n")
    return [(r.name, r.levelno, r.getMessage()) for r in caplog.records]


def test_log4j_lines_keep_their_level_and_their_exceptions_follow(caplog) -> None:
    got = records(
        caplog,
        [
            "26/11/23 05:39:38 WARN NativeCodeLoader: Unable to load native-hadoop library",
            "26/11/23 05:39:40 ERROR Executor: Exception in task 0.0",
            "java.lang.IllegalStateException: boom",
            "\tat org.apache.spark.Foo.bar(Foo.scala:1)",
            "Caused by: java.io.IOException: gone",
            "",
            "a line of its own",
        ],
    )
    spark = SPARK_LOG.name
    assert got == [
        (spark, logging.WARNING, "NativeCodeLoader: Unable to load native-hadoop library"),
        (spark, logging.ERROR, "Executor: Exception in task 0.0"),
        (spark, logging.ERROR, "java.lang.IllegalStateException: boom"),
        (spark, logging.ERROR, "\tat org.apache.spark.Foo.bar(Foo.scala:1)"),
        (spark, logging.ERROR, "Caused by: java.io.IOException: gone"),
        (JVM_LOG.name, logging.WARNING, "a line of its own"),
    ]


def test_start_up_notices_are_debug_and_unknown_lines_warnings(caplog) -> None:
    got = records(
        caplog,
        [
            "WARNING: Using incubator modules: jdk.incubator.vector",
            "Using Spark's default log4j profile: org/apache/spark/log4j2-defaults.properties",
            'Setting default log level to "WARN".',
            "JAVA_HOME is not set",
        ],
    )
    assert [level for _, level, _ in got] == [logging.DEBUG] * 3 + [logging.WARNING]


@pytest.mark.parametrize(
    ("level", "expected"),
    [(logging.ERROR, "ERROR"), (logging.WARNING, "WARN"), (logging.INFO, "INFO"), (5, "DEBUG")],
)
def test_the_log4j_level_matches_the_loggers(level: int, expected: str) -> None:
    before = SPARK_LOG.level
    SPARK_LOG.setLevel(level)
    try:
        assert log4j_level() == expected
    finally:
        SPARK_LOG.setLevel(before)
