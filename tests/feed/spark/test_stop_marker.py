"""The stop marker's note: an owner that may write says so before it looks for the marker."""

from __future__ import annotations

from pathlib import Path

from tisink.feed.spark.stop_marker import may_write, owners_started_path


def test_an_owner_leaves_its_note_then_writes_only_without_a_stop(tmp_path: Path) -> None:
    marker = str(tmp_path / "stop")
    assert may_write(marker)
    assert Path(owners_started_path(marker)).exists()  # the driver will not cancel it now
    Path(marker).touch()
    assert not may_write(marker)


def test_an_owner_without_the_drivers_files_plays_on(tmp_path: Path) -> None:
    """An executor on another machine: no folder to leave the note in, no marker to see."""
    assert may_write(str(tmp_path / "elsewhere" / "stop"))
    assert may_write(None)
