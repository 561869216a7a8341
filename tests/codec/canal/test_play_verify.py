"""End to end: ``tisink play`` through ``protocol=canal-json``, then ``tisink verify``.

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

import orjson
import pytest

from tisink.codec.compression import decompress
from tisink.eventsink.file import read_file_topic
from tisink.play.run import PlaySpec, run_play
from tisink.sink.providers import DEFAULT_FILE_TOPIC
from tisink.verify import verify

TISINK = shutil.which("tisink") or str(Path(sys.executable).with_name("tisink"))
PARTITIONS = 3


def _play(directory: Path, workload: str, rows: int, params: str) -> tuple[str, Any]:
    uri = (
        f"file://{directory}?protocol=canal-json&file-layout=partitions"
        f"&partition-num={PARTITIONS}{params}"
    )
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
        ("all-types", "&enable-tidb-extension=true&content-compatible=true"),
        ("demo", "&enable-tidb-extension=true&large-message-handle-compression=lz4"),
        (
            "all-types",
            "&enable-tidb-extension=true&max-message-bytes=1024"
            "&large-message-handle-option=handle-key-only",
        ),
    ],
)
def test_a_file_play_verifies(tmp_path: Path, workload: str, params: str) -> None:
    directory = tmp_path / "out"
    uri, summary = _play(directory, workload, 1500, params)
    report = verify(uri)
    assert report.ok, [str(v) for v in report.violations]
    assert sum(report.counts[t] for t in ("INSERT", "UPDATE", "DELETE")) == 1500
    extension = "enable-tidb-extension=true" in params
    assert (report.counts["WATERMARK"] > 0) is extension
    assert report.counts["WATERMARK"] == summary.messages.get("WATERMARK", 0)
    compression = "lz4" if "lz4" in params else "none"
    key_only = 0
    for _, _, key, value in read_file_topic(directory, DEFAULT_FILE_TOPIC):
        assert key is None and value is not None
        body = orjson.loads(decompress(compression, value))
        if "max-message-bytes=1024" in params and not body["isDdl"]:  # TiCDC checks rows only
            assert len(value) + 36 <= 1024
            key_only += bool(body.get("_tidb", {}).get("onlyHandleKey"))
    if "handle-key-only" in params:
        assert key_only > 0


def test_the_command_line_plays_into_the_embedded_broker_and_verifies(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    from tests.kafka_support.readback import unique_topic

    topic = unique_topic("canal-cli")
    uri = (
        f"kafka://{kafka_bootstrap}/{topic}?protocol=canal-json&partition-num={PARTITIONS}"
        "&enable-tidb-extension=true"
    )
    summary = tmp_path / "summary.json"
    args = ["play", "--engine", "inline", "--workload", "demo", "--rows", "2000"]
    play = subprocess.run(
        [TISINK, "--log-json", *args, "--sink-uri", uri, "--summary-json", str(summary)],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert play.returncode == 0, play.stderr[-3000:]
    result = json.loads(summary.read_text())
    assert result["rows"] == 2000 and result["verified"] is True
    check = subprocess.run(
        [TISINK, "verify", "--sink-uri", uri, "--timeout", "20"],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert check.returncode == 0, check.stdout[-3000:] + check.stderr[-3000:]
    assert ": OK" in check.stdout


def test_a_spark_play_into_the_broker_verifies(kafka_bootstrap: str) -> None:
    pytest.importorskip("pyspark")
    from tests.kafka_support.readback import unique_topic
    from tisink.feed.spark import run_spark_play

    topic = unique_topic("canal-spark")
    uri = (
        f"kafka://{kafka_bootstrap}/{topic}?protocol=canal-json&partition-num={PARTITIONS}"
        "&enable-tidb-extension=true"
    )
    spec = PlaySpec(
        workload="all-types", seed=5, rows=1000, sink_uri=uri, master="local[2]", clock="feed"
    )
    summary = run_spark_play(spec)
    assert summary.rows == 1000
    report = verify(uri, timeout_s=20, acknowledged=summary.acknowledged)
    assert report.ok, [str(v) for v in report.violations]
    assert sum(report.counts[t] for t in ("INSERT", "UPDATE", "DELETE")) == 1000
    assert report.counts["WATERMARK"] > 0
