"""The first pass over a feed folder: how Spark splits it, and the few records the plan needs.

Spark reads a feed in splits (large files are cut into several), so a line's place in the feed
is (file rank, split start, index in the split): that orders lines as the feed does without
counting lines across splits first. This pass reads the text once and parses only the lines
the driver needs before routing anything: the DDLs (they define the schemas rows are checked
and routed with), the ``resolved`` records (watermark points), each split's first row and the
commitTs of its first and last lines; it counts each split's lines, which turns a place back
into ``file:line``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import groupby
from typing import Any

import orjson

from tisink.feed.errors import FeedError
from tisink.feed.spark.feed_paths import feed_file_name
from tisink.model.tso import LOGICAL_BITS

BLOCK_BITS = 44
INDEX_BITS = 28
"""A split holds fewer than 2**28 lines (splits are at most a few hundred MB)."""


def place_of(rank: int, block_start: int, index: int) -> int:
    """The place of line ``index`` of the split starting at byte ``block_start`` of the file
    of ``rank`` (files in name order)."""
    return ((rank << BLOCK_BITS | block_start) << INDEX_BITS) | index


def _split_key(row: Any) -> tuple[str, int]:
    return row[0], row[1]


def _ts_of(text: str) -> int | None:
    try:
        obj = orjson.loads(text)
        ts = obj.get("commitTs", obj.get("ts")) if type(obj) is dict else None
    except orjson.JSONDecodeError:
        return None
    return ts if type(ts) is int else None


def _line_ts(text: str) -> int | None:
    """A record's commitTs (or a resolved record's ts) read without parsing the line."""
    at = text.find('"commitTs":')
    start = at + 11 if at >= 0 else text.find('"ts":') + 5
    if start < 5:
        return None
    end = start
    while end < len(text) and text[end] in " 0123456789":
        end += 1
    try:
        return int(text[start:end])
    except ValueError:
        return None


def survey_partition(rows: Iterable[Any], interval_ms: int) -> Iterator[tuple[Any, ...]]:
    """Per split of one Spark partition of ``(file_name, file_block_start, value)`` rows:
    ``("n", file, block, lines)``, ``("d", file, block, index, text)`` per DDL,
    ``("s", file, block, index, ts)`` per resolved record, ``("r", file, block, index, ts)``
    for its first row, ``("t", file, block, first_ts, last_ts)`` and ``("i", intervals)``:
    the watermark intervals its records fall in (the watermark policy's grid)."""
    for (file, block), lines in groupby(rows, key=_split_key):
        count = 0
        first_row = False
        edge: list[str] = []
        intervals: set[int] = set()
        for index, row in enumerate(lines):
            count = index + 1
            text = row[2]
            if not text or text.isspace():
                continue
            if not edge:
                edge.append(text)
            last = text
            line_ts = _line_ts(text)
            if line_ts is not None:
                intervals.add((line_ts >> LOGICAL_BITS) // interval_ms)
            kind = _kind(text)
            if kind == "ddl":
                yield ("d", file, block, index, text)
            elif kind == "resolved":
                ts = _ts_of(text)
                if ts is not None:
                    yield ("s", file, block, index, ts)
            elif not first_row and kind == "row" and (ts := _ts_of(text)) is not None:
                first_row = True
                yield ("r", file, block, index, ts)
        yield ("n", file, block, count)
        yield ("i", tuple(intervals))
        if edge:
            first_ts, last_ts = _ts_of(edge[0]), _ts_of(last)
            if first_ts is not None and last_ts is not None:
                yield ("t", file, block, first_ts, last_ts)


def _kind(text: str) -> str | None:
    """The record type of a line, parsing only lines that may be a DDL or resolved record."""
    if '"ddl"' not in text and '"resolved"' not in text:
        return "row"
    try:
        obj = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return obj.get("type") if type(obj) is dict else None


@dataclass
class FeedSurvey:
    """The collected first pass: file ranks, split line counts and the records it kept."""

    ranks: dict[str, int]
    counts: dict[tuple[str, int], int]
    ddl_lines: list[tuple[int, str]]
    """(place, text) of every DDL line, in feed order."""
    resolved: list[tuple[int, int]]
    """(place, ts) of every resolved record, in feed order."""
    first_row: tuple[int, int] | None
    """(place, commitTs) of the feed's first row."""
    first_ts: int
    last_ts: int
    intervals: tuple[int, ...]
    """The watermark intervals (indices) that hold records."""

    @classmethod
    def collect(cls, items: Iterable[tuple[Any, ...]]) -> FeedSurvey:
        parts: dict[str, list[tuple[Any, ...]]] = {}
        for item in items:
            parts.setdefault(item[0], []).append(item)
        counts = {(f, b): n for _, f, b, n in parts.get("n", [])}
        if not counts:
            raise FeedError("the feed holds no lines")
        # Spark names files URI-encoded: the feed's order is that of the names themselves
        names = sorted({f for f, _ in counts}, key=feed_file_name)
        ranks = {name: rank for rank, name in enumerate(names)}

        def at(file: str, block: int, index: int) -> int:
            return place_of(ranks[file], block, index)

        rows = sorted((at(f, b, i), ts) for _, f, b, i, ts in parts.get("r", []))
        edges = [(at(f, b, 0), first, last) for _, f, b, first, last in parts.get("t", [])]
        edges.sort()
        return cls(
            ranks=ranks,
            counts=counts,
            ddl_lines=sorted((at(f, b, i), text) for _, f, b, i, text in parts.get("d", [])),
            resolved=sorted((at(f, b, i), ts) for _, f, b, i, ts in parts.get("s", [])),
            first_row=rows[0] if rows else None,
            first_ts=edges[0][1] if edges else 0,
            last_ts=max((last for *_, last in edges), default=0),
            intervals=tuple(sorted({k for _, found in parts.get("i", []) for k in found})),
        )

    def line_of(self, place: int) -> tuple[str, int]:
        """``(file name, line number)`` of a place (the name as the file system has it)."""
        index = place & ((1 << INDEX_BITS) - 1)
        block = (place >> INDEX_BITS) & ((1 << BLOCK_BITS) - 1)
        rank = place >> (INDEX_BITS + BLOCK_BITS)
        name = next(n for n, r in self.ranks.items() if r == rank)
        before = sum(n for (f, b), n in self.counts.items() if f == name and b < block)
        return feed_file_name(name), before + index + 1

    def start_of(self, file: str, block: int) -> int:
        return place_of(self.ranks[file], block, 0)
