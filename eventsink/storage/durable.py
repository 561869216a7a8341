"""Durable, atomic file writes: a consumer never reads a half-written file as complete.

Each file is written to a hidden temporary name beside it (``.NAME.tmp``, which matches no
pattern of the layout), flushed and ``fsync``'ed, then renamed over its name, and the directory
is ``fsync``'ed so the rename survives a crash. New directories are ``fsync``'ed into their
parents. A crash therefore leaves either the old file, the whole new one, or a ``.tmp`` file a
consumer skips (and the next write of that name replaces).
"""

from __future__ import annotations

import os
from pathlib import Path

TEMP_SUFFIX = ".tmp"


def temp_path(path: Path) -> Path:
    return path.with_name(f".{path.name}{TEMP_SUFFIX}")


def is_temp_name(name: str) -> bool:
    return name.startswith(".") and name.endswith(TEMP_SUFFIX)


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def make_dirs(directory: Path) -> None:
    """Create ``directory`` and its missing parents, each made durable in its parent."""
    missing: list[Path] = []
    current = directory
    while not current.exists():
        missing.append(current)
        current = current.parent
    for path in reversed(missing):
        try:
            path.mkdir()
        except FileExistsError:
            continue
        _fsync_dir(path.parent)


def write_atomic(path: Path, data: bytes, *, sync: bool = True) -> None:
    """Replace ``path`` by ``data`` all at once; with ``sync``, durably."""
    make_dirs(path.parent)
    temp = temp_path(path)
    with open(temp, "wb") as out:
        out.write(data)
        out.flush()
        if sync:
            os.fsync(out.fileno())
    os.replace(temp, path)
    if sync:
        _fsync_dir(path.parent)
