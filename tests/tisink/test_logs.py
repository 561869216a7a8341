"""Console verbosity: warnings by default, -v info, -vv debug; Spark and py4j quiet unless
asked."""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tisink.logs import SINK_OUTPUT, configure_logging

QUIETED = ("aiokafka", "py4j", "tisink.feed.spark.log4j", *SINK_OUTPUT)


@pytest.fixture
def restored_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    levels = {name: logging.getLogger(name).level for name in QUIETED}
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    for name, value in levels.items():
        logging.getLogger(name).setLevel(value)


@pytest.mark.parametrize(
    ("verbose", "root", "spark", "py4j"),
    [
        (0, logging.WARNING, logging.CRITICAL, logging.WARNING),
        (1, logging.INFO, logging.WARNING, logging.WARNING),
        (2, logging.DEBUG, logging.INFO, logging.DEBUG),
        (5, logging.DEBUG, logging.INFO, logging.DEBUG),
    ],
)
def test_each_v_shows_more(
    restored_logging, verbose: int, root: int, spark: int, py4j: int
) -> None:
    configure_logging(verbose=verbose, json_output=True)
    assert logging.getLogger().level == root
    assert logging.getLogger("tisink.feed.spark.log4j").level == spark
    assert logging.getLogger("py4j").level == py4j


def test_an_explicit_level_wins(restored_logging) -> None:
    configure_logging("ERROR", verbose=2, json_output=True)
    assert logging.getLogger().level == logging.ERROR
    assert logging.getLogger("py4j").level == logging.ERROR


def test_the_log_sink_prints_its_lines_at_the_default_verbosity(tmp_path: Path) -> None:
    """``log://``'s lines are its output: without -v a play still shows one per row and DDL."""
    feed = tmp_path / "feed.jsonl"
    tisink = str(Path(sys.executable).with_name("tisink"))
    generate = [tisink, "generate", "--workload", "all-types"]
    subprocess.run([*generate, "--rows", "20", "--out", str(feed)], check=True, timeout=120)
    play = [tisink, "play", "--engine", "inline", "--no-verify"]
    result = subprocess.run(
        [*play, "--feed", str(feed), "--sink-uri", "log://"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    lines = [
        line for line in result.stderr.splitlines() if '"logger": "tisink.eventsink.log"' in line
    ]
    assert len(lines) >= 20
    assert any('"logger": "tisink.ddlsink.log"' in line for line in result.stderr.splitlines())
