"""The end of a partition file: whole records only, up to the last acknowledged one.

A batch is appended whole or not at all: when a write fails (ENOSPC, EFBIG) the file is cut
back to where it ended before the batch, so the error is reported over whole records. A process
killed mid-write cannot cut back, so it may leave a torn tail: part of a line, or records of a
batch nobody acknowledged. The producer that next takes the file (``--append``, another Spark
task) settles it first: it cuts back to the end the side file recorded after the last
acknowledged batch, or, without a usable side file, to the last whole line, and refuses a file
whose last whole line is no record (damage a cut tail does not explain).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import orjson

from tisink.eventsink.errors import FileSinkError

log = logging.getLogger(__name__)


def append_whole(fd: int, path: Path, data: bytes, size: int) -> None:
    """Append ``data`` to ``path`` (open at ``fd``, ending at ``size``), or leave it at
    ``size`` and raise."""
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(fd, view) :]
    except BaseException:
        try:
            os.ftruncate(fd, size)
        except OSError as cut:
            log.error(
                "%s: a failed write could not be cut back to %d bytes (%s); the next producer "
                "to open the file cuts its torn tail",
                path,
                size,
                cut,
            )
        raise


def settle(fd: int, path: Path, size: int, acknowledged: tuple[int, int] | None) -> tuple[int, int]:
    """The next offset and the size of the file at ``path`` (open at ``fd``, ``size`` bytes)
    once its unacknowledged tail is cut. ``acknowledged`` is the side file's (next offset,
    size) after the last acknowledged batch, if there is one."""
    if acknowledged is not None:
        offset, end = acknowledged
        if end < size and _ends_a_line(fd, end):
            _cut(fd, path, size, end, f"offset {offset}, the last acknowledged end")
            return offset, end
    records, whole, last = _scan(path)
    if last is not None and not _is_record(last[1]):
        raise FileSinkError(
            f"{path}:{last[0]}: the last whole line is no record, so the file is damaged, not "
            "cut short by a failed write; move it away or cut it to its last good record"
        )
    if whole < size:
        _cut(fd, path, size, whole, f"offset {records}, its last whole record")
    return records, whole


def _ends_a_line(fd: int, end: int) -> bool:
    return end == 0 or (end > 0 and os.pread(fd, 1, end - 1) == b"\n")


def _cut(fd: int, path: Path, size: int, end: int, where: str) -> None:
    os.ftruncate(fd, end)
    log.warning(
        "%s: cut %d bytes that no acknowledged write left (a write that failed or was "
        "killed); continuing after %s",
        path,
        size - end,
        where,
    )


def _scan(path: Path) -> tuple[int, int, tuple[int, bytes] | None]:
    """(records, bytes of whole lines, (number, text) of the last whole non-blank line)."""
    records = whole = 0
    last: tuple[int, bytes] | None = None
    with path.open("rb") as lines:
        for number, line in enumerate(lines, 1):
            if not line.endswith(b"\n"):
                break
            whole += len(line)
            if line.strip():
                records += 1
                last = (number, line)
    return records, whole, last


def _is_record(line: bytes) -> bool:
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return type(record) is dict and type(record.get("offset")) is int and "value" in record
