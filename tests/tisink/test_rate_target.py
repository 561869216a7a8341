"""A paced play reports the target it was held to over the time it ran: a short play on a long
profile is compared with the part it played, not the whole round's mean; the console rounds the
rates, ``--summary-json`` keeps every digit."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from tisink.cli import app
from tisink.feed.rate_profile import parse_rate_profile
from tisink.summary_view import rate_line, shown_rate

PROFILE = "ramp:500-3000/20s,hold:3000/30s,idle:5s"


def test_a_short_play_on_a_long_profile_reports_the_part_it_played(tmp_path: Path) -> None:
    """The issue's play: 3,100 bank rows stay within the 20 s ramp (about 4.1 s of it), so the
    target is near 750 rows/s, not the round's 2,272.7."""
    summary = tmp_path / "summary.json"
    result = CliRunner().invoke(
        app,
        [
            *("play", "--engine", "inline", "--workload", "bank", "--rows", "3100"),
            *("--rate", PROFILE, "--sink-uri", "blackhole://", "--summary-json", str(summary)),
        ],
    )
    assert result.exit_code == 0, result.output
    written = orjson.loads(summary.read_bytes())
    rate, rows = written["rate"], written["rows"]
    profile = parse_rate_profile(PROFILE)
    played = profile.due_s(rows) + rate["behind_s"]
    assert played < 20  # never left the ramp
    assert rate["target"] < 1000 < profile.mean
    assert rate["target"] == pytest.approx(profile.mean_over(played), rel=1e-3)
    shown = f"{shown_rate(rate['target']):.1f}"
    assert f"target {shown}," in result.output
    assert rate_line(rate) in result.output and f"rate {shown} rows/s" in result.output
    assert re.search(r"target \d+\.\d{5}", result.output) is None  # no long digits
    assert len(str(rate["target"]).partition(".")[2]) > 1  # the JSON is not rounded


def test_rates_show_rounded() -> None:
    rate = {"target": 2272.7272727272725, "achieved": 720.0, "spread_pct": 3.5, "seconds": 3}
    assert rate_line({**rate, "behind_s": 0.0}).startswith("rate 2272.7 rows/s: achieved 720 ")
    assert [shown_rate(v) for v in (3000.0, 756.0975, 0.004219, 0.0)] == [3000.0, 756.1, 0.0042, 0]
