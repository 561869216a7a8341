"""``tisink replay`` options it will not take are refused before anything is read or sent: one
``replay refused:`` line, exit 2 (a failed run is exit 1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tisink.cli import app
from tisink.replay.records import ReplayRecord, record_line


@pytest.fixture
def capture(tmp_path: Path) -> Path:
    folder = tmp_path / "cap"
    (folder / "t").mkdir(parents=True)
    (folder / "t" / "partition-0.jsonl").write_bytes(
        b"".join(record_line(ReplayRecord(i, None, b"v", (), None)) for i in range(5))
    )
    return folder


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["--rate", "10", "--speed", "2"], "give --rate or --speed, not both"),
        (["--rate", "0"], "--rate must be positive, got 0"),
        (["--speed", "-1"], "--speed must be positive or max, got -1"),
        (["--loop", "0"], "--loop must be at least 1, got 0"),
        (
            ["--sink-uri", "blackhole://"],
            "replay sends topics and partitions; blackhole:// has none (use kafka:// or file://)",
        ),
    ],
)
def test_options_the_replay_will_not_take_are_refused(
    capture: Path, tmp_path: Path, args: list[str], reason: str
) -> None:
    out = tmp_path / "out"
    sink = [] if "--sink-uri" in args else ["--sink-uri", f"file://{out}"]
    result = CliRunner().invoke(app, ["replay", str(capture), *sink, *args])
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2, result.output
    assert lines == [f"replay refused: {reason}"]
    assert not out.exists()


def test_a_source_that_is_no_folder_or_topic_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["replay", "sqlite:///x.db", "--sink-uri", f"file://{tmp_path / 'out'}"]
    )
    assert result.exit_code == 2, result.output
    assert result.output.strip() == (
        "replay refused: replay reads folders and kafka:// topics, not sqlite://"
    )
