"""A replay source read whole into memory before the first send (``tisink replay --preload``).

A streamed replay decodes its source while it sends, so the first pass shares the machine's
cores with the readers and goes slower than the later ones. A performance engineer driving a
consumer at line rate wants the sending rate alone, as kafka-producer-perf-test's
``--payload-file`` and the raw senders of ``bench/bench_replay.py`` give it: the records in
memory before the clock starts. Preloading reads every stream's chunks once (in the source's
own readers, while the target opens), then sends them ``--loop`` times from memory. The
summary's ``startup_s`` then holds the reading and ``writing_rows_per_s`` the sending alone.

Memory: the records themselves, so the load refuses to go past half the memory the machine
has available when it starts (a clear error, not the kernel's OOM killer).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import cast

from tisink.replay.chunks import Chunk
from tisink.replay.errors import ReplayError
from tisink.replay.sources import ReplaySource

_MEMINFO = Path("/proc/meminfo")


def available_bytes() -> int | None:
    """The memory the machine has available now (Linux's MemAvailable); None elsewhere."""
    if sys.platform != "linux":
        return None
    for line in _MEMINFO.read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return None


class PreloadedSource:
    """``source`` read into memory by ``load`` (blocking: the replay calls it in a thread);
    its streams then come from memory, pass after pass."""

    blocking = False
    """Every chunk is at hand once loaded."""

    def __init__(self, source: ReplaySource, budget_bytes: int | None = None) -> None:
        self._source = source
        self.topic = source.topic
        if budget_bytes is None:
            available = available_bytes()
            budget_bytes = available // 2 if available else None
        self._budget = budget_bytes
        """Record bytes the load may hold (None: no limit known)."""
        self._held: list[list[Chunk]] | None = None
        self.loaded = (0, 0)
        """Records and bytes read so far (the progress line reads it while ``load`` runs)."""

    def partition_count(self) -> int:
        return self._source.partition_count()

    def start(self, loops: int) -> None:
        """The source reads one pass; the later ones come from memory."""
        self._source.start(1)

    def load(self) -> None:
        """Read every stream of one pass to its end; a ReplayError when the records would pass
        the memory budget, or the source's own error (a bad line names file and line)."""
        held: list[list[Chunk]] = []
        records = size = 0
        for stream in self._source.streams(1):
            chunks: list[Chunk] = []
            for chunk in stream:
                records += len(chunk.records)
                size += chunk.size
                self.loaded = (records, size)
                if self._budget is not None and size > self._budget:
                    raise ReplayError(
                        f"--preload: the source {self.topic} holds more than "
                        f"{self._budget / 1e6:,.0f} MB of records, half the memory available; "
                        "replay without --preload (it streams the source)"
                    )
                chunks.append(chunk)
            held.append(chunks)
        self._held = held

    def streams(self, loops: int) -> list[Iterator[Chunk]]:
        if self._held is None:
            raise ReplayError("a preloaded source was not loaded before its streams were asked")
        return [_passes(chunks, loops) for chunks in self._held]

    def time_range(self) -> tuple[int, int] | None:
        """From the held records' timestamps (None before the load or where one lacks one)."""
        if self._held is None:
            return None
        stamps: list[int | None] = [s for chunks in self._held for c in chunks for s in c.stamps]
        if not stamps or None in stamps:
            return None
        known = cast(list[int], stamps)
        return min(known), max(known)

    def close(self) -> None:
        self._held = None
        self._source.close()


def _passes(chunks: list[Chunk], loops: int) -> Iterator[Chunk]:
    for loop in range(loops):
        for chunk in chunks:
            yield chunk if loop == 0 else chunk._replace(loop=loop)
