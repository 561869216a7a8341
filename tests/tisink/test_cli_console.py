"""What a user sees: warnings, the summary and the perf-test line by default, info logs with
-v; ``--report`` writes the summary and the chart."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import orjson

TISINK = shutil.which("tisink") or str(Path(sys.executable).with_name("tisink"))
PLAY = ("play", "--engine", "inline", "--workload", "all-types", "--rows", "300")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TISINK, *args], capture_output=True, text=True, timeout=120)


def log_levels(stderr: str) -> set[str]:
    levels = set()
    for line in stderr.splitlines():
        if line.startswith("{"):
            levels.add(json.loads(line)["level"])
    return levels


def test_by_default_no_info_logs_and_a_report(tmp_path: Path) -> None:
    out = run("--log-json", *PLAY, "--sink-uri", "blackhole://", "--report", str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert log_levels(out.stderr) <= {"warning", "error"}
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("300 rows acknowledged, ") and "ms 99th" in last
    summary = orjson.loads((tmp_path / "summary.json").read_bytes())
    assert summary["latency_ms"]["count"] == 300
    assert sum(entry["rows"] for entry in summary["series"]) == 300
    assert (tmp_path / "play.png").read_bytes().startswith(b"\x89PNG")


def test_v_shows_info_logs() -> None:
    out = run("--log-json", "-v", *PLAY, "--sink-uri", "blackhole://")
    assert out.returncode == 0, out.stderr
    assert "info" in log_levels(out.stderr)


def test_a_duration_without_a_rate_is_refused() -> None:
    out = run(*PLAY[:-2], "--duration", "10", "--sink-uri", "blackhole://")
    assert out.returncode == 2
    assert "--duration needs --rate" in " ".join(out.stderr.split())
