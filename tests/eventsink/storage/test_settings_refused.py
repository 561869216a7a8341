"""Issue 44 item 19: a storage setting the sink will not take is a refusal before the play
(exit 2, one line); a value TiCDC holds to its range is warned about once."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tisink.cli import app
from tisink.play.run import PlaySpec, run_play


@pytest.mark.parametrize(
    ("param", "message"),
    [
        ("date-separator=week", "date-separator='week': expected one of none, year, month, day"),
        ("file-size=abc", "file-size='abc': expected an integer, got 'abc'"),
        ("flush-interval=soon", "want a duration like 5s or 500ms"),
    ],
)
def test_a_bad_setting_is_refused_before_the_play(tmp_path: Path, param: str, message: str) -> None:
    out = tmp_path / "out"
    uri = f"file://{out}?protocol=csv&{param}"
    result = CliRunner().invoke(
        app, ["play", "--engine", "inline", "--rows", "50", "--sink-uri", uri]
    )
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("play refused: "), result.output
    assert message in lines[0]
    assert not out.exists()


def test_a_held_file_size_is_warned_about_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    uri = f"file://{tmp_path}/out?protocol=csv&file-size=17"  # a value no other test holds
    with caplog.at_level(logging.WARNING):
        summary = run_play(PlaySpec(workload="demo", rows=50, sink_uri=uri, engine="inline"))
    assert summary.verified is True
    held = [r for r in caplog.records if r.getMessage().startswith("file-size 17 is out of")]
    assert len(held) == 1
    assert held[0].getMessage() == (
        "file-size 17 is out of [1024, 536870912]; using 1024, as TiCDC does"
    )
