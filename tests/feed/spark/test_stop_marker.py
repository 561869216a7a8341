"""The stop marker's note: an owner that may write says so before it looks for the marker."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

from tisink.feed.spark.stop_marker import (
    POLL_INTERVAL_S,
    may_write,
    owners_started_path,
    until_marked,
)


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


def test_a_record_taken_before_the_stop_is_passed_on(tmp_path: Path) -> None:
    """The source counts a record as handed over when it is taken: the marker is looked at
    before the next one is taken, never after."""
    marker = tmp_path / "stop"
    taken: list[int] = []

    def source() -> Iterator[int]:
        for number in range(10):
            taken.append(number)
            yield number

    passed = []
    for record in until_marked(source(), str(marker)):
        passed.append(record)
        if record == 3:
            marker.touch()
            time.sleep(POLL_INTERVAL_S * 1.5)  # the next check is due
    assert passed == taken == [0, 1, 2, 3]
