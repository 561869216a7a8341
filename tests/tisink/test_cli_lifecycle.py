"""How ``tisink play`` ends when it does not run to the end: a failed play's summary, Ctrl-C at
each phase (the CLI in a subprocess, as a terminal runs it)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import orjson

from tisink.feed.samples import DEMO_FEED

TISINK = shutil.which("tisink") or str(Path(sys.executable).with_name("tisink"))


def test_a_failed_play_reports_what_was_acknowledged_and_its_real_times(tmp_path: Path) -> None:
    """300 rows at 200 rows/s, then a bad record: about 1.5 s of playing, all of it in the
    summary (time, rate, latency, series) and in the console's last line."""
    lines = Path(DEMO_FEED).read_text().splitlines()
    bad_at = [i for i, line in enumerate(lines) if '"type":"row"' in line][300]
    feed, summary = tmp_path / "bad.jsonl", tmp_path / "summary.json"
    feed.write_text("\n".join([*lines[:bad_at], '{"type":"row","commitTs":1}', *lines[bad_at:]]))
    out = subprocess.run(
        [
            *(TISINK, "play", "--engine", "inline", "--feed", str(feed), "--rate", "200"),
            *("--sink-uri", f"file://{tmp_path / 'out'}?protocol=simple"),
            *("--summary-json", str(summary)),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 1, out.stderr[-2000:]
    result = orjson.loads(summary.read_bytes())
    assert result["error"].startswith(f"bad.jsonl:{bad_at + 1}: ")
    assert result["latency_ms"]["count"] == result["rows"] == 300
    assert sum(entry["rows"] for entry in result["series"]) == 300
    assert result["elapsed_s"] >= 1.0 and result["startup_s"] > 0
    assert 100 < result["rows_per_s"] < 300
    perf = out.stderr.strip().splitlines()[-2]
    assert perf.startswith("300 rows acknowledged, "), out.stderr[-2000:]
    assert out.stderr.strip().splitlines()[-1].startswith("play failed: bad.jsonl:")
