"""What a play wrote, file by file: the bytes two plays (engines, parallelisms) must share."""

from __future__ import annotations

from pathlib import Path


def output_files(directory: Path, pattern: str = "*.jsonl") -> dict[str, bytes]:
    """Every file under ``directory`` matching ``pattern``, by its path relative to it."""
    return {
        str(path.relative_to(directory)): path.read_bytes()
        for path in sorted(directory.rglob(pattern))
        if path.is_file()
    }
