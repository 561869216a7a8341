"""An owner's progress file: the rows acknowledged so far, rewritten whole while the owner
plays and once more when it stops; the driver finds every owner's."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tisink.feed.spark import progress_files
from tisink.feed.spark.progress_files import progress_path, progress_paths, report_progress


async def test_an_owner_reports_its_count_until_cancelled_then_the_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = str(tmp_path / "stop")
    path = progress_path(marker, 3)
    acknowledged = [0]
    monkeypatch.setattr(progress_files, "REPORT_INTERVAL_S", 0.01)
    reporting = asyncio.create_task(report_progress(path, lambda: acknowledged[0]))
    await asyncio.sleep(0.05)
    assert path.read_text() == "0"
    acknowledged[0] = 1200
    await asyncio.sleep(0.05)
    assert path.read_text() == "1200"
    acknowledged[0] = 1500  # acknowledged after the last report: written as it stops
    reporting.cancel()
    await asyncio.gather(reporting, return_exceptions=True)
    assert path.read_text() == "1500"
    assert not path.with_suffix(".tmp").exists()  # replaced whole, never half written
    progress_path(marker, 1).write_text("7")
    assert progress_paths(marker) == [progress_path(marker, 1), path]


async def test_a_removed_folder_ends_the_reports_quietly(tmp_path: Path) -> None:
    path = progress_path(str(tmp_path / "gone" / "stop"), 0)
    reporting = asyncio.create_task(report_progress(path, lambda: 5))
    await asyncio.sleep(0.01)
    reporting.cancel()
    [outcome] = await asyncio.gather(reporting, return_exceptions=True)
    assert isinstance(outcome, asyncio.CancelledError)  # no OSError out of the owner
    assert not path.exists()
