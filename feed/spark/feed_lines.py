"""A feed's files cut into byte ranges (splits), read by the tasks themselves, line by line.

The tasks read a feed's files with Python instead of Spark's text source: the JVM then never
reads a line, converts it to Arrow or sorts it, and stage one hands the owners each line's
place in its file (``at``, ``size``) instead of its bytes (``exchange.py``); an owner reads its
lines back from the file (``FeedLines``). Every executor reads the feed at the path the
driver was given, as Spark's local file source did.

Lines end at ``\\n``, as the inline reader's do (a lone ``\\r`` stays in its line), and a line
keeps its ``\\n``, as a line read from a file in Python does. A split ``[start, end)`` holds the
lines that begin in it, so every line is in exactly one split; the driver cuts the files as
Spark's file source does (``split_bytes``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import pyarrow as pa

from tisink.feed.errors import FeedError

MAX_SPLIT_BYTES = 128 << 20
"""Spark's ``spark.sql.files.maxPartitionBytes``."""
MIN_SPLIT_BYTES = 4 << 20
"""Spark's ``spark.sql.files.openCostInBytes``: no split is cut smaller for more cores."""
RUN_BYTES = 8 << 20
"""A task reads a split this many bytes at a time (a run of lines; a longer line is read
whole)."""
SPAN_BYTES = 32 << 20
SPARSE = 8
CLOSE_BYTES = 1 << 20
"""An owner reads a batch of lines in one ``pread`` when their span is at most ``SPAN_BYTES``
and ``SPARSE`` times their bytes plus ``CLOSE_BYTES`` (a task owning an eighth of the rows
still does)."""
_LIMIT = (1 << 31) - 1
"""An Arrow binary array's offsets are 32-bit: no run may hold more bytes."""


@dataclass(frozen=True)
class FeedSplit:
    """Bytes ``[start, end)`` of the feed file of ``rank`` (files in name order)."""

    rank: int
    path: str
    start: int
    end: int


@dataclass(frozen=True)
class LineRun:
    """Consecutive lines of one split: their bytes (each with its ``\\n``), each line's offset
    in its file and its size without the ``\\n``."""

    lines: pa.BinaryArray
    at: np.ndarray
    sizes: np.ndarray
    data: bytes
    """The bytes ``lines`` is a view of (its offsets index them)."""

    def texts(self, count: int | None = None) -> list[bytes]:
        """The first ``count`` lines (all by default) as bytes, each with its ``\\n``: sliced
        from ``data``, four times cheaper than Arrow's ``to_pylist``."""
        size = len(self.lines) if count is None else min(count, len(self.lines))
        offsets = self.offsets[: size + 1].tolist()
        data = self.data
        return [data[a:b] for a, b in pairwise(offsets)]

    def text(self, index: int) -> bytes:
        """Line ``index`` with its ``\\n``."""
        start, end = self.offsets[index : index + 2].tolist()
        return self.data[start:end]

    @property
    def offsets(self) -> np.ndarray:
        """Where each line starts in ``data``, and where the last one ends."""
        return np.frombuffer(self.lines.buffers()[1], np.int32)[: len(self.lines) + 1]


def split_bytes(total: int, cores: int) -> int:
    """Spark's split size for ``total`` bytes on ``cores`` (``FilePartition.maxSplitBytes``):
    the files spread over the cores, between 4 and 128 MB."""
    per_core = -(-total // max(1, cores))
    return min(MAX_SPLIT_BYTES, max(MIN_SPLIT_BYTES, per_core))


def feed_splits(files: Sequence[Path], cores: int, size: int | None = None) -> list[FeedSplit]:
    """The splits of ``files`` (ranked in the order given), each at most ``size`` bytes
    (``split_bytes`` by default); an empty file has none."""
    sizes = [file.stat().st_size for file in files]
    size = size or split_bytes(sum(sizes), cores)
    return [
        FeedSplit(rank, os.path.abspath(file), start, min(start + size, length))
        for rank, (file, length) in enumerate(zip(files, sizes, strict=True))
        for start in range(0, length, size)
    ]


def split_tasks(splits: Sequence[FeedSplit], cores: int) -> int:
    """How many tasks read ``splits`` (consecutive splits share one): one per split, but no
    more than the cores or the feed's size in full splits allow, so a folder of many small
    files does not make a task of each (as Spark's file source packs them)."""
    total = sum(split.end - split.start for split in splits)
    return min(len(splits), max(1, cores, -(-total // MAX_SPLIT_BYTES)))


def split_runs(split: FeedSplit, run_bytes: int = RUN_BYTES) -> Iterator[LineRun]:
    """The lines that begin in ``split``, in runs of about ``run_bytes``."""
    with open(split.path, "rb", buffering=0) as file:
        base = _first_line(file, split.start)
        if base is None or base >= split.end:
            return
        file.seek(base)
        data = b""
        while True:
            chunk = file.read(max(run_bytes, len(data)))  # a long line: read more each time
            eof = not chunk
            data = data + chunk if data else chunk
            if len(data) > _LIMIT:
                raise FeedError(f"{split.path}: a line of over 2 GB at byte {base}")
            newlines = np.flatnonzero(np.frombuffer(data, np.uint8) == 10)
            count = len(newlines)
            tail = int(newlines[-1]) + 1 if count else 0
            ends = newlines.astype(np.int64)
            if eof and tail < len(data):  # the file's last line, without its \n
                ends = np.append(ends, len(data))
                tail = len(data)
            if len(ends):
                starts = np.empty(len(ends), np.int64)
                starts[0] = 0
                starts[1:] = ends[:-1] + 1
                inside = int(np.searchsorted(starts, split.end - base, "left"))
                if inside:
                    yield _run(data, starts[:inside], ends[:inside], base, eof)
                if inside < len(ends):
                    return
            if eof:
                return
            base += tail
            data = data[tail:]


def _run(data: bytes, starts: np.ndarray, ends: np.ndarray, base: int, eof: bool) -> LineRun:
    """The lines ``data[starts[i]:ends[i]]`` and their ``\\n`` (the last line of a file may have
    none), ``data`` starting at byte ``base`` of its file."""
    offsets = np.empty(len(starts) + 1, np.int32)
    offsets[:-1] = starts
    last = int(ends[-1])
    offsets[-1] = last + 1 if last < len(data) else last
    lines = pa.Array.from_buffers(
        pa.binary(), len(starts), [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )
    return LineRun(lines, starts + base, (ends - starts).astype(np.int32), data)


def _first_line(file: BinaryIO, start: int) -> int | None:
    """The offset of the first line that begins at or after ``start`` (None past the end)."""
    if start == 0:
        return 0
    file.seek(start - 1)
    at = start - 1
    while chunk := file.read(RUN_BYTES):
        found = chunk.find(b"\n")
        if found >= 0:
            return at + found + 1
        at += len(chunk)
    return None


class FeedLines:
    """An owner's reader of lines by their place in the feed's files (``paths`` by rank), on
    files opened once."""

    def __init__(self, paths: Sequence[str]) -> None:
        self._paths = paths
        self._files: dict[int, int] = {}

    def __enter__(self) -> FeedLines:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        for fd in self._files.values():
            os.close(fd)
        self._files.clear()

    def lines_at(self, files: list[int], at: list[int], sizes: list[int]) -> list[bytes]:
        """The lines stage one read (each row's file rank, offset and size; without the
        ``\\n``). An owner's rows come in feed order, so a batch of them mostly lies in one
        file close together: then one ``pread`` covers the span and each line is a slice of
        it (a ``pread`` a line costs four times more); otherwise a ``pread`` a line."""
        count = len(at)
        if not count:
            return []
        starts = np.array(at, np.int64)
        ends = starts + np.array(sizes, np.int64)
        first = int(starts.min())
        span = int(ends.max()) - first
        one_file = files.count(files[0]) == count
        if one_file and span <= min(SPAN_BYTES, SPARSE * sum(sizes) + CLOSE_BYTES):
            data = self._read(files[0], span, first)
            starts -= first
            ends -= first
            return [data[a:b] for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]
        return [self._read(f, s, a) for f, a, s in zip(files, at, sizes, strict=True)]

    def _read(self, rank: int, size: int, at: int) -> bytes:
        fd = self._files.get(rank)
        if fd is None:
            try:
                fd = self._files[rank] = os.open(self._paths[rank], os.O_RDONLY)
            except OSError as err:
                raise FeedError(f"feed file {self._paths[rank]}: {err.strerror}") from err
        data = os.pread(fd, size, at)
        if len(data) != size:
            path = self._paths[rank]
            raise FeedError(f"feed file {path} changed while it was played (byte {at})")
        return data
