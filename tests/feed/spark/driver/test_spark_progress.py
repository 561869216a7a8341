"""A Spark play's progress line, on real local Spark: every phase, then the rows acknowledged
and their rate while the partition owners write."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyspark")

from tisink.feed.play_spec import PlaySpec
from tisink.feed.spark import run_spark_play

OWNED_PHASE = "writing: every task generates the workload and writes the partitions it owns"
ROWS = re.compile(r"writing: rows ([\d,]+)  ([\d,]+) rows/s  \(\d/2 owner tasks done\)$")


def test_the_phases_and_then_the_rows_acknowledged(spark: Any, tmp_path: Path) -> None:
    lines: list[str] = []
    spec = PlaySpec(
        workload="demo", seed=1, rows=3000, master="local[2]", rate=1500,
        sink_uri=f"file://{tmp_path / 'out'}?protocol=simple&partition-num=2",
    )  # fmt: skip
    run = run_spark_play(spec, stop_marker=str(tmp_path / "stop"), on_phase=lines.append)
    assert run.rows == 3000
    assert lines[0] == "starting Spark (local[2])"
    assert "planning the workload demo" in lines
    # a workload on two cores is generated in its owners: no stage one, writing from the start
    assert not any("stage one" in line for line in lines), lines
    assert OWNED_PHASE in lines
    counted = [m for m in map(ROWS.match, lines) if m is not None]
    acknowledged = [int(m.group(1).replace(",", "")) for m in counted]
    rates = [int(m.group(2).replace(",", "")) for m in counted]
    assert acknowledged and 0 < max(acknowledged) <= 3000, lines
    assert acknowledged == sorted(acknowledged)
    assert max(rates) > 0, lines


def test_a_task_playing_several_owners_holds_the_play_to_the_whole_rate(
    spark: Any, tmp_path: Path
) -> None:
    """Four partitions on two cores, the rows spread evenly (index-value): each task plays two
    owners through one pacer, which must take both owners' shares of --rate (with one share
    the play takes twice as long)."""
    config = tmp_path / "changefeed.toml"
    config.write_text('[[sink.dispatchers]]\nmatcher = ["*.*"]\npartition = "index-value"\n')
    spec = PlaySpec(
        workload="sysbench", seed=1, rows=4000, master="local[2]", rate=4000,
        config_path=config, verify_after=False,
        sink_uri=f"file://{tmp_path / 'out'}?protocol=simple&partition-num=4",
    )  # fmt: skip
    run = run_spark_play(spec)
    planned = run.rows / 4000  # the scenario adds its preloaded rows
    assert run.rows >= 4000
    assert 0.8 * planned < run.sending_s < 1.5 * planned, run.sending_s
