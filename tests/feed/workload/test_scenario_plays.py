"""``tisink play --workload bank`` and ``--workload sysbench`` verify with every protocol.

Inline engine into ``file://`` partition files (canal-json also into TiCDC's cloud-storage
layout), small row counts; the play reads its stream
back and verifies it (transactions regrouped by commitTs, key-changing UPDATEs split into
DELETE + INSERT by the table sink).
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import orjson
import pytest

from tisink.eventsink.file import list_file_topics, read_file_topic
from tisink.play.run import PlaySpec, run_play

PROTOCOLS = [
    "simple",
    "simple&encoding-format=avro",
    "debezium",
    "tencent-dts",
    "tencent-dts&encoding-format=avro",
    "alibaba-dts",
    "canal-json",  # TiCDC's cloud-storage layout: a folder per table
    "canal-json&file-layout=partitions",
    "open",
]
ROWS = {"bank": 150, "sysbench": 200}


@pytest.mark.parametrize("workload", sorted(ROWS))
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_the_scenario_verifies(tmp_path: Path, workload: str, protocol: str) -> None:
    options = PlaySpec(
        workload=workload,
        rows=ROWS[workload],
        sink_uri=f"file://{tmp_path}?protocol={protocol}&partition-num=3",
        engine="inline",
        clock="feed",
    )
    summary = run_play(options)
    assert summary.verified is True
    if workload == "sysbench":  # key-changing UPDATEs reached the sink split in two
        assert summary.latency_ms["count"] > summary.rows


def test_a_bank_consumer_sees_the_same_sum_at_every_watermark(tmp_path: Path) -> None:
    """Read the Simple JSON stream back as a consumer would: at each WATERMARK, the balances
    of every partition's rows up to it add up to the same sum."""
    options = PlaySpec(
        workload="bank",
        rows=600,
        sink_uri=f"file://{tmp_path}?protocol=simple&partition-num=3",
        engine="inline",
        clock="feed",
        watermark_interval_s=0.02,
    )
    assert run_play(options).verified is True
    changes: list[tuple[int, str, Decimal]] = []
    watermarks: set[int] = set()
    for topic in list_file_topics(tmp_path):
        for _, _, _, value in read_file_topic(tmp_path, topic):
            message = orjson.loads(value)
            if message["type"] == "WATERMARK":
                watermarks.add(message["commitTs"])
            elif message.get("table") == "accounts":
                data = message["data"]
                changes.append((message["commitTs"], data["id"], Decimal(data["balance"])))
    changes.sort(key=lambda change: change[0])
    loaded = changes[0][0]  # the preload: every account in one transaction
    sums = set()
    for watermark in sorted(w for w in watermarks if w >= loaded):
        balances = {key: balance for ts, key, balance in changes if ts <= watermark}
        assert len(balances) == 100
        sums.add(sum(balances.values()))
    assert len(watermarks) > 5 and len(sums) == 1
