"""``tisink play --rate`` with stages: the inline play follows the profile; Spark refuses it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tisink.feed.rate_profile import parse_rate_profile

TISINK = shutil.which("tisink") or str(Path(sys.executable).with_name("tisink"))
PROFILE = "hold:2000/0.2s,idle:3s,ramp:1000-3000/0.2s"


def _play(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [TISINK, "play", "--workload", "bank", "--rows", "600", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_profile_paces_an_inline_play(tmp_path: Path) -> None:
    summary = tmp_path / "summary.json"
    run = _play(
        *("--engine", "inline", "--rate", PROFILE),
        *("--sink-uri", f"file://{tmp_path / 'out'}?protocol=simple", "--clock", "feed"),
        *("--summary-json", str(summary)),
    )
    assert run.returncode == 0, run.stderr[-2000:]
    result = orjson.loads(summary.read_bytes())
    assert result["verified"] is True
    # the target is the profile over the part played (the schedule's time for the rows, or
    # longer when behind), not over a round of it
    profile = parse_rate_profile(PROFILE)
    played = profile.due_s(result["rows"]) + result["rate"]["behind_s"]
    assert result["rate"]["target"] == pytest.approx(profile.mean_over(played), rel=1e-2)
    # 700 rows (100 preloaded): 400 by 0.2 s, 3 s idle, then 300 of the ramp's in 0.156 s
    # (unpaced, the whole command takes about a second)
    assert result["elapsed_s"] >= 3.35


def test_profiles_are_refused_before_playing() -> None:
    for args, reason in [
        (["--engine", "inline", "--rate", "hold:2000"], "rate stage 'hold:2000' needs"),
        (["--engine", "spark", "--rate", "hold:2000/1s"], "paces the inline engine"),
    ]:
        run = _play(*args, "--sink-uri", "blackhole://")
        assert run.returncode == 2, (args, run.stderr)
        assert reason in " ".join(run.stderr.split()), (args, run.stderr)
