"""End to end: ``tisink play`` through ``protocol=open``, then ``tisink verify`` (issue 26).

A ``file://`` sink for the workloads and parameters, the embedded broker through the command
line as a user runs it (inline engine), and one small Spark play into the broker.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.codec.open.support import events
from tisink.eventsink.file import read_file_topic
from tisink.play.run import PlaySpec, run_play
from tisink.sink.providers import DEFAULT_FILE_TOPIC
from tisink.verify import verify

TISINK = shutil.which("tisink") or str(Path(sys.executable).with_name("tisink"))
PARTITIONS = 3


def _play(directory: Path, workload: str, rows: int, params: str = "") -> tuple[str, Any]:
    uri = f"file://{directory}?protocol=open&partition-num={PARTITIONS}{params}"
    options = PlaySpec(
        workload=workload,
        rows=rows,
        sink_uri=uri,
        engine="inline",
        clock="feed",
        verify_after=False,
    )
    return uri, run_play(options)


@pytest.mark.parametrize(
    ("workload", "params"),
    [
        ("all-types", ""),
        ("demo", "&max-batch-size=4&large-message-handle-compression=snappy"),
        ("demo", "&max-message-bytes=2048&open-output-old-value=false"),
        ("demo", "&max-message-bytes=1200&large-message-handle-option=handle-key-only"),
        (
            "demo",
            "&max-message-bytes=1200&large-message-handle-option=claim-check"
            "&claim-check-storage-uri=file://{tmp}/cc",
        ),
    ],
)
def test_a_file_play_verifies(tmp_path: Path, workload: str, params: str) -> None:
    directory = tmp_path / "out"
    params = params.replace("{tmp}", str(tmp_path))
    uri, summary = _play(directory, workload, 2000, params)
    report = verify(uri)
    assert report.ok, [str(v) for v in report.violations]
    assert sum(report.counts[t] for t in ("INSERT", "UPDATE", "DELETE")) == 2000
    assert report.counts["WATERMARK"] == summary.messages["WATERMARK"] > 0
    batch = 4 if "max-batch-size=4" in params else 16
    for partition in range(PARTITIONS):
        for key, value in _records(directory, partition):
            assert len(events(key, value)) <= batch
            if "max-message-bytes=" in params:
                limit = int(params.split("max-message-bytes=")[1].split("&")[0])
                assert len(key) + len(value) + 36 <= limit
    if "claim-check" in params:
        assert list((tmp_path / "cc").glob("*.json"))


def _records(directory: Path, partition: int) -> list[tuple[bytes, bytes]]:
    return [
        (key, value)
        for p, _, key, value in read_file_topic(directory, DEFAULT_FILE_TOPIC)
        if p == partition and key is not None
    ]


def test_the_command_line_plays_into_the_embedded_broker_and_verifies(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    from tests.kafka_support.readback import unique_topic

    topic = unique_topic("open-cli")
    uri = f"kafka://{kafka_bootstrap}/{topic}?protocol=open&partition-num={PARTITIONS}"
    summary = tmp_path / "summary.json"
    play = subprocess.run(
        [
            *(TISINK, "--log-json", "play", "--engine", "inline", "--workload", "demo"),
            *("--rows", "3000", "--sink-uri", uri, "--summary-json", str(summary)),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert play.returncode == 0, play.stderr[-3000:]
    result = json.loads(summary.read_text())
    assert result["rows"] == 3000 and result["verified"] is True
    check = subprocess.run(
        [TISINK, "verify", "--sink-uri", uri, "--timeout", "20"],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert check.returncode == 0, check.stdout[-3000:] + check.stderr[-3000:]
    assert ": OK" in check.stdout


def test_a_spark_play_into_the_broker_verifies(kafka_bootstrap: str, tmp_path: Path) -> None:
    pytest.importorskip("pyspark")
    from tests.kafka_support.readback import unique_topic

    topic = unique_topic("open-spark")
    uri = f"kafka://{kafka_bootstrap}/{topic}?protocol=open&partition-num={PARTITIONS}"
    summary = tmp_path / "summary.json"
    play = subprocess.run(
        [
            *(TISINK, "--log-json", "play", "--engine", "spark", "--master", "local[2]"),
            *("--workload", "demo", "--rows", "1200", "--clock", "feed"),
            *("--sink-uri", uri, "--summary-json", str(summary)),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert play.returncode == 0, play.stderr[-3000:]
    result = json.loads(summary.read_text())
    assert result["engine"] == "spark" and result["rows"] == 1200
    assert result["verified"] is True
    report = verify(uri, timeout_s=20)
    assert report.ok, [str(v) for v in report.violations]
    assert sum(report.counts[t] for t in ("INSERT", "UPDATE", "DELETE")) == 1200
