"""A Spark play measures like an inline one: the tasks' latency histograms and per-second
counts are merged by the driver, and the series adds up to the play's totals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyspark")

from tisink.play.run import PlaySpec, run_play

INDEX_VALUE = '[[sink.dispatchers]]\nmatcher = ["*.*"]\npartition = "index-value"\n'


def test_the_tasks_measurements_are_merged(spark: Any, tmp_path: Path) -> None:
    config = tmp_path / "changefeed.toml"
    config.write_text(INDEX_VALUE, encoding="utf-8")
    uri = f"file://{tmp_path / 'out'}?protocol=simple&partition-num=3"
    options = PlaySpec(
        workload="all-types", rows=600, sink_uri=uri, config_path=config, master="local[2]"
    )
    summary = run_play(options)
    assert summary.engine == "spark" and summary.verified is True
    assert summary.latency_ms["count"] == summary.rows == 600
    assert summary.latency_ms["p99"] <= summary.latency_ms["max"]
    assert sum(e["rows"] for e in summary.series) == 600
    assert sum(e["messages"] for e in summary.series) == sum(summary.messages.values())
    assert sum(e["bytes"] for e in summary.series) == summary.bytes > 0
    assert summary.series[0]["t"] >= int(summary.startup_s) - 1
    # rows_per_s runs from the command's start (start-up included), the writing phase after it
    assert 600 / summary.elapsed_s <= summary.rows_per_s <= 600 / summary.startup_s
    assert summary.writing_rows_per_s > summary.rows_per_s
