"""The first pass over a feed folder: its splits, and the few records the plan needs.

The tasks read a feed in splits (large files are cut into several byte ranges:
``feed_lines.py``), so a line's place in the feed is (file rank, split start, index in the
split): that orders lines as the feed does without counting lines across splits first. This
pass reads the text once and parses only the lines the driver needs before routing anything:
the DDLs (they define the schemas rows are checked and routed with), the ``resolved`` records
(watermark points), each split's first row and the commitTs of its first and last lines,
and the watermark intervals its records fall in (by bisection over their times, which never go
back: ``run_intervals``); it counts each split's lines, which turns a place back into
``file:line``.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.compute as pc

from tisink.feed.errors import FeedError
from tisink.feed.spark.feed_lines import FeedSplit, split_runs
from tisink.feed.spark.plan import BLOCK_BITS, INDEX_BITS, place_of
from tisink.model.tso import LOGICAL_BITS


def _ts_of(text: str | bytes) -> int | None:
    try:
        obj = orjson.loads(text)
        ts = obj.get("commitTs", obj.get("ts")) if type(obj) is dict else None
    except orjson.JSONDecodeError:
        return None
    return ts if type(ts) is int else None


BISECT_SHARE = 16
"""A run whose first and last records lie more than its lines / ``BISECT_SHARE`` intervals
apart has every line parsed instead of bisected (bisection would parse most of them)."""


def run_intervals(lines: pa.Array, interval_ms: int, share: int = BISECT_SHARE) -> set[int]:
    """The watermark intervals of a run's records, found by bisection: a good feed's record
    times never go back (the reader's rule), so where two lines fall in one interval, so does
    every line between them, and only about (intervals x log lines) lines are parsed. Times
    that go back fail the play in stage one before anything is written, so what is found for
    such a feed is never used. A run spread over many intervals (a slow feed: a record every
    second or so) has every line parsed."""
    count = len(lines)
    cells: dict[int, int | None] = {}

    def cell(index: int) -> int | None:
        if index not in cells:
            ts = _ts_of(lines[index].as_py())
            cells[index] = None if ts is None else (ts >> LOGICAL_BITS) // interval_ms
        return cells[index]

    def found(indexes: Iterable[int]) -> tuple[int, int] | None:
        for index in indexes:
            if (c := cell(index)) is not None:
                return index, c
        return None

    first = found(range(count))
    last = found(range(count - 1, -1, -1)) if first is not None else None
    if first is None or last is None:
        return set()
    if last[1] - first[1] > count // share:
        return {c for index in range(count) if (c := cell(index)) is not None}
    intervals: set[int] = set()
    spans = [(*first, *last)]
    while spans:
        a, ca, b, cb = spans.pop()
        intervals.update((ca, cb))
        if ca == cb or b - a <= 1:
            continue
        middle = (a + b) // 2
        inside = found(range(middle, b)) or found(range(middle - 1, a, -1))
        if inside is not None:
            spans += [(a, ca, *inside), (*inside, b, cb)]
    return intervals


def survey_split(
    file: int, block: int, runs: Iterable[pa.Array], interval_ms: int
) -> Iterator[tuple[Any, ...]]:
    """One split of the file of rank ``file`` starting at byte ``block``, its lines in runs
    (Arrow text or bytes, each line with or without its ``\\n``): ``("n", file, block,
    lines)``, ``("d", file, block, index, text)`` per DDL,
    ``("s", file, block, index, ts)`` per resolved record, ``("r", file, block, index, ts)``
    for its first row, ``("t", file, block, first_ts, last_ts)`` and ``("i", intervals)``: the
    watermark intervals its records fall in (the watermark policy's grid). Only the lines
    that may be a DDL or resolved record, and those up to the first row and after the last
    record, are read one by one."""
    count = 0
    first_row = False
    edges: list[str | None] = [None, None]  # the first and last record's text
    intervals: set[int] = set()
    for run in runs:
        lines = run.cast(pa.binary())
        intervals |= run_intervals(lines, interval_ms)
        marked = pc.match_substring_regex(lines, '"ddl"|"resolved"')
        for index in pc.indices_nonzero(marked).to_pylist():
            text = _text(lines[index])
            kind = _kind(text)
            if kind == "ddl":
                yield ("d", file, block, count + index, text)
            elif kind == "resolved" and (ts := _ts_of(text)) is not None:
                yield ("s", file, block, count + index, ts)
        for index in range(len(lines)) if not first_row else ():
            text = _text(lines[index])
            if not text or text.isspace():
                continue
            edges[0] = edges[0] or text
            if _kind(text) == "row" and (ts := _ts_of(text)) is not None:
                first_row = True
                yield ("r", file, block, count + index, ts)
                break
        for index in reversed(range(len(lines))):
            text = _text(lines[index])
            if text and not text.isspace():
                edges[1] = text
                break
        count += len(lines)
    yield ("n", file, block, count)
    yield ("i", tuple(intervals))
    first, last = edges
    if first is not None and last is not None:
        first_ts, last_ts = _ts_of(first), _ts_of(last)
        if first_ts is not None and last_ts is not None:
            yield ("t", file, block, first_ts, last_ts)


def _text(line: pa.Scalar) -> str:
    """A line as text, without its ``\\n``. A line that is not UTF-8 has its bad bytes
    replaced here: stage one, which reads the bytes, names it as a bad line."""
    raw: bytes = line.as_py()
    return raw.removesuffix(b"\n").decode("utf-8", "replace")


SURVEY_SCHEMA = "items binary"
"""What a survey task returns: its pickled items, one row."""


def survey_batches(
    batches: Iterable[pa.RecordBatch], splits: Sequence[FeedSplit], interval_ms: int
) -> Iterator[pa.RecordBatch]:
    """The survey of the splits whose indexes (``id``, into ``splits``) are in the Arrow
    batches of a Spark partition, its items pickled in one row (they are few: a handful per
    split, and the DDL lines)."""
    items = [
        item
        for batch in batches
        for index in batch.column(0).to_pylist()
        for item in survey_split(
            splits[index].rank,
            splits[index].start,
            (run.lines for run in split_runs(splits[index])),
            interval_ms,
        )
    ]
    yield pa.RecordBatch.from_pydict({"items": pa.array([pickle.dumps(items)], pa.binary())})


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
    """The collected first pass: file names, split line counts and the records it kept."""

    names: Sequence[str]
    """The feed's file names by rank, as the inline engine names them."""
    counts: dict[tuple[int, int], int]
    """The lines of each split, by (file rank, split start)."""
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
    def collect(cls, items: Iterable[tuple[Any, ...]], names: Sequence[str]) -> FeedSurvey:
        """The survey of the feed whose files are ``names`` (by rank) from its splits'
        items."""
        parts: dict[str, list[tuple[Any, ...]]] = {}
        for item in items:
            parts.setdefault(item[0], []).append(item)
        counts = {(f, b): n for _, f, b, n in parts.get("n", [])}
        if not any(counts.values()):
            raise FeedError("the feed holds no lines")

        def at(file: int, block: int, index: int) -> int:
            return place_of(file, block, index)

        rows = sorted((at(f, b, i), ts) for _, f, b, i, ts in parts.get("r", []))
        edges = [(at(f, b, 0), first, last) for _, f, b, first, last in parts.get("t", [])]
        edges.sort()
        return cls(
            names=names,
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
        before = sum(n for (f, b), n in self.counts.items() if f == rank and b < block)
        return self.names[rank], before + index + 1
