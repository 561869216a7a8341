"""A Spark play's progress line, on real local Spark: every phase, then the rows acknowledged
while the partition owners write."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyspark")

from tisink.feed.spark import run_spark_play


def test_the_phases_and_then_the_rows_acknowledged(spark: Any, tmp_path: Path) -> None:
    lines: list[str] = []
    run = run_spark_play(
        feed_path=None, workload="demo", seed=1, rows=3000, config_path=None,
        sink_uri=f"file://{tmp_path / 'out'}?protocol=simple&partition-num=2",
        master="local[2]", feed_clock=False, rate=1500, stop_marker=str(tmp_path / "stop"),
        on_phase=lines.append,
    )  # fmt: skip
    assert run.rows == 3000
    assert lines[0] == "starting Spark (local[2])"
    assert "planning the workload demo" in lines
    assert any(line.startswith("stage one") for line in lines), lines
    writing = [line for line in lines if line.startswith("writing: ")]
    acknowledged = [
        int(m.group(1).replace(",", ""))
        for m in map(re.compile(r"([\d,]+) rows acknowledged").search, writing)
        if m is not None
    ]
    assert acknowledged and 0 < max(acknowledged) <= 3000, lines
    assert acknowledged == sorted(acknowledged)
