"""The owners' progress files: each owner task writes the rows it had acknowledged to a small
file beside the stop marker every REPORT_INTERVAL_S (``report_progress``), and the driver sums
them for its progress line (``driver/progress.py``). Spark reports tasks, not rows, until a
task ends. The files reach the executors of a local master or of a cluster on the driver's
machine, as the marker does.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable
from pathlib import Path

REPORT_INTERVAL_S = 0.5


def progress_path(marker: str, owner: int) -> Path:
    return Path(marker).parent / f"owner-{owner}.progress"


def progress_paths(marker: str) -> list[Path]:
    """Every owner's progress file so far."""
    return sorted(Path(marker).parent.glob("owner-*.progress"))


async def report_progress(path: Path, acknowledged: Callable[[], int]) -> None:
    """In an owner, until cancelled: write the rows acknowledged so far to ``path`` (and once
    more when cancelled)."""
    try:
        while True:
            _write(path, acknowledged())
            await asyncio.sleep(REPORT_INTERVAL_S)
    finally:  # cancelled once the sinks closed: the final count
        _write(path, acknowledged())


def _write(path: Path, rows: int) -> None:
    temporary = path.with_suffix(".tmp")
    with contextlib.suppress(OSError):  # the play may have ended and removed the folder
        temporary.write_text(str(rows))
        os.replace(temporary, path)
