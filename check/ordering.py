"""Rows of one side in the order of their normalised sort keys, with memory bounded.

The server sorts by the key columns, and usually that is Python's order of the normalised
keys too: then rows stream straight through (``in_server_order``), and the first row out of
order raises OutOfOrder. It is not when a key stored as text sorts ``"10"`` before ``"9"``, or
a collation ignores case; then ``sorted_items`` sorts each chunk of ``chunk_rows`` rows here:
a table of one chunk never leaves memory, a larger one is spilled to a temporary file as
sorted runs (a chunk that continues the previous run's order joins it) that are merged
lazily, each read in small blocks."""

from __future__ import annotations

import heapq
import pickle
import tempfile
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from operator import itemgetter
from typing import IO, Any

from tisink.check.normalise import NotUTF8, Unreadable

Item = tuple[tuple[Any, ...], Sequence[Any]]
"""(sort key, the row as read)."""
Prepare = Callable[[Sequence[Any]], Item]

BLOCK_ROWS = 1024
_first = itemgetter(0)


class OutOfOrder(Exception):
    """The server's order is not the order of the normalised keys."""


def sortable(value: Any) -> tuple[Any, ...]:
    """A sort key component that orders NULL, values, unreadable values and text that is not
    UTF-8 without comparing across kinds (None and Unreadable do not compare with ints)."""
    if value is None:
        return (0,)
    if isinstance(value, Unreadable):
        return (2, value.text)
    if isinstance(value, NotUTF8):
        return (3, value.raw)
    return (1, value)


def in_server_order(
    chunks: Iterable[Sequence[Sequence[Any]]], prepare: Prepare
) -> Generator[Item, None, None]:
    """The rows as the server sends them; OutOfOrder at the first key below its predecessor."""
    last: tuple[Any, ...] | None = None
    for chunk in chunks:
        for item in map(prepare, chunk):
            if last is not None and item[0] < last:
                raise OutOfOrder
            last = item[0]
            yield item


def sorted_items(
    chunks: Iterable[Sequence[Sequence[Any]]], prepare: Prepare, chunk_rows: int
) -> Generator[Item, None, None]:
    """The rows of ``chunks`` prepared and ordered by sort key (stable for equal keys)."""
    pending: list[Item] = []
    with tempfile.TemporaryFile() as spill:
        runs: list[tuple[int, int]] = []  # (file offset, items) of each run
        last_key: tuple[Any, ...] | None = None
        for chunk in chunks:
            pending.extend(map(prepare, chunk))
            if len(pending) < chunk_rows:
                continue
            pending.sort(key=_first)
            last_key = _spill(spill, runs, pending, last_key)
            pending = []
        pending.sort(key=_first)
        if not runs:
            yield from pending
            return
        if pending:
            _spill(spill, runs, pending, last_key)
        yield from heapq.merge(*(_read_run(spill, run) for run in runs), key=_first)


def _spill(
    spill: IO[bytes], runs: list[tuple[int, int]], items: list[Item], last: tuple[Any, ...] | None
) -> tuple[Any, ...]:
    """Append sorted ``items`` to the file: to the last run when they continue its order
    (the last run's blocks end the file), else as a new run."""
    spill.seek(0, 2)
    if last is not None and items[0][0] >= last:
        offset, count = runs[-1]
        runs[-1] = (offset, count + len(items))
    else:
        runs.append((spill.tell(), len(items)))
    for start in range(0, len(items), BLOCK_ROWS):
        pickle.dump(items[start : start + BLOCK_ROWS], spill, pickle.HIGHEST_PROTOCOL)
    return items[-1][0]


def _read_run(spill: IO[bytes], run: tuple[int, int]) -> Iterator[Item]:
    """The items of one run; the file is shared by every run, so each block is read after
    seeking to where this run left off."""
    offset, remaining = run
    while remaining > 0:
        spill.seek(offset)
        block: list[Item] = pickle.load(spill)
        offset = spill.tell()
        remaining -= len(block)
        yield from block
