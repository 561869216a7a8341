"""``tisink play --workload bank`` and ``--workload sysbench`` verify with every protocol.

Inline engine into ``file://`` partition files, small row counts; the play reads its stream
back and verifies it (transactions regrouped by commitTs, key-changing UPDATEs split into
DELETE + INSERT by the table sink).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tisink.play import PlayOptions, run_play

PROTOCOLS = [
    "simple",
    "simple&encoding-format=avro",
    "debezium",
    "tencent-dts",
    "tencent-dts&encoding-format=avro",
    "alibaba-dts",
    "canal-json",
    "open",
]
ROWS = {"bank": 150, "sysbench": 200}


@pytest.mark.parametrize("workload", sorted(ROWS))
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_the_scenario_verifies(tmp_path: Path, workload: str, protocol: str) -> None:
    options = PlayOptions(
        workload=workload,
        rows=ROWS[workload],
        sink_uri=f"file://{tmp_path}?protocol={protocol}&partition-num=3",
        engine="inline",
        feed_clock=True,
    )
    summary = run_play(options)
    assert summary.verified is True
    if workload == "sysbench":  # key-changing UPDATEs reached the sink split in two
        assert summary.latency_ms["count"] > summary.rows
