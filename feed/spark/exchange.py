"""The feed's exchange between stage one and the partition owners, in Arrow columns.

Stage one hands every routed row to the JVM as a row of ``EXCHANGE_SCHEMA``: the owner, the
ordering key (commitTs, and the feed place's ``seq`` cut into two longs), which half of a split
UPDATE it is, its table's plan DDL and the line's own bytes. The JVM moves each row to its
owner's partition (``repartitionById``) and sorts it by (commitTs, seq); no Python object is
pickled per row. A split's ``ChunkReport`` travels in the same schema (``report``, pickled
once per split and owner) with commitTs -1, so it sorts ahead of every row, where the owner
checks it before writing anything. The owner decodes each line once (``exchanged_items``):
stage one has already checked it against the schema of its table at that point of the feed.
A line's optional ``checksum`` travels in its bytes too: the owner reads it as the reader
does, from the line's whole row, and gives a split UPDATE's half the checksum the table
sink's split gives it, so both engines write the same checksums.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterable, Iterator, Sequence
from itertools import groupby
from typing import Any

import orjson
import pyarrow as pa

from tisink.feed.format.checksums import parse_checksum
from tisink.feed.spark.plan import RECORD_SUB
from tisink.feed.spark.reports import ChunkReport
from tisink.feed.spark.tasks.routing import RowValue, ShuffleKey
from tisink.model.events import RowChangedEvent, RowChecksum
from tisink.model.table import TableInfo
from tisink.tablesink.split import split_update

EXCHANGE_SCHEMA = (
    "owner int, ts long, hi long, lo long, part byte, ref int, line binary, report binary"
)
"""The exchange as Spark's ``mapInArrow`` declares it."""
ARROW_SCHEMA = pa.schema(
    [
        ("owner", pa.int32()),
        ("ts", pa.int64()),
        ("hi", pa.int64()),
        ("lo", pa.int64()),
        ("part", pa.int8()),
        ("ref", pa.int32()),
        ("line", pa.binary()),
        ("report", pa.binary()),
    ]
)
ORDER = ("ts", "hi", "lo")
"""The owners' order: commitTs, then the feed place (reports first, at commitTs -1)."""
LO_BITS = 30
"""``seq`` (``place << 2 | sub``) as two longs: a place's index in its split (under 2**28)
and sub-place are the low bits, its file rank and split start the high ones."""
LO_MASK = (1 << LO_BITS) - 1
WHOLE, DELETE_HALF, INSERT_HALF = 0, 1, 2
"""``part``: the line's row whole, or one half of the UPDATE stage one split."""
BATCH_ROWS = 8192
"""Stage one hands its rows to the JVM once this many have gathered (checked after each of
Spark's input batches, so a batch holds up to this plus one input batch's rows)."""

RESULT_SCHEMA = "result binary"
"""What an owner's task returns: its pickled ``TaskResult``, one row."""
RESULT_ARROW = pa.schema([("result", pa.binary())])


class ExchangeBatches:
    """Stage one's output, gathered column by column into Arrow batches. A row's line is
    taken from the Arrow array Spark handed in (``lines_from``) by its index, so its bytes go
    back to the JVM without a Python copy."""

    def __init__(self) -> None:
        self._keys: list[list[int]] = [[] for _ in range(6)]  # owner, ts, hi, lo, part, ref
        self._lines: list[pa.Array] = []
        self._run: pa.Array | None = None
        self._picks: list[int] = []
        self._reports: list[tuple[int, bytes]] = []

    def __len__(self) -> int:
        return len(self._keys[0])

    def lines_from(self, values: pa.Array) -> None:
        """The lines the next rows' indexes name."""
        self._close_run()
        self._run = values

    def routed(self, items: list[tuple[ShuffleKey, Any]], index: int) -> None:
        """The router's items of the row on line ``index`` of the current lines: one, or the
        halves of a split UPDATE (``RowRouter.route``)."""
        owners, tss, his, los, parts, refs = self._keys
        picks = self._picks
        whole = len(items) == 1
        for (owner, ts, seq), value in items:
            owners.append(owner)
            tss.append(ts)
            his.append(seq >> LO_BITS)
            los.append(seq & LO_MASK)
            parts.append(WHOLE if whole else DELETE_HALF if seq & 3 == RECORD_SUB else INSERT_HALF)
            refs.append(value[0])
            picks.append(index)

    def report(self, report: ChunkReport, owners: int) -> None:
        """``report`` to each of the ``owners`` (pickled once)."""
        data = pickle.dumps(report, pickle.HIGHEST_PROTOCOL)
        self._reports.extend((owner, data) for owner in range(owners))

    def take(self) -> Iterator[pa.RecordBatch]:
        """The rows gathered so far, then the reports, as batches; the builder starts empty
        again (with the same current lines)."""
        self._close_run()
        if self._lines:
            keys = zip(self._keys, list(ARROW_SCHEMA)[:6], strict=True)
            arrays = [pa.array(c, f.type) for c, f in keys]
            lines = pa.concat_arrays(self._lines)
            arrays += [lines, pa.nulls(len(lines), pa.binary())]
            yield pa.RecordBatch.from_arrays(arrays, schema=ARROW_SCHEMA)
        if self._reports:
            count = len(self._reports)
            owners = pa.array([owner for owner, _ in self._reports], pa.int32())
            arrays = [owners, pa.array([-1] * count, pa.int64())]
            arrays += [pa.array([0] * count, f.type) for f in list(ARROW_SCHEMA)[2:6]]
            arrays.append(pa.nulls(count, pa.binary()))
            arrays.append(pa.array([report for _, report in self._reports], pa.binary()))
            yield pa.RecordBatch.from_arrays(arrays, schema=ARROW_SCHEMA)
        self._keys = [[] for _ in range(6)]
        self._lines, self._reports = [], []

    def _close_run(self) -> None:
        if self._picks:
            assert self._run is not None
            self._lines.append(self._run.take(pa.array(self._picks, pa.int32())))
            self._picks = []


def split_lines(
    batches: Iterable[pa.RecordBatch],
) -> Iterator[tuple[str, int, Iterator[pa.Array]]]:
    """The lines of Spark's text rows ``(file_name, file_block_start, value)``, split by split:
    ``(file, block start, runs of the split's lines as bytes)``; a split may run over several
    batches, and a batch hold several splits."""

    def runs() -> Iterator[tuple[tuple[str, int], pa.Array]]:
        for batch in batches:
            files = batch.column(0).to_pylist()
            blocks = batch.column(1).to_pylist()
            values = batch.column(2).cast(pa.binary())  # from text: the same buffers
            at = 0
            for key, group in groupby(zip(files, blocks, strict=True)):
                count = sum(1 for _ in group)
                yield key, values.slice(at, count)
                at += count

    for (file, block), group in groupby(runs(), key=lambda run: run[0]):
        yield file, block, (lines for _, lines in group)


def exchanged_items(
    batches: Iterable[pa.RecordBatch], tables: Sequence[TableInfo | None]
) -> Iterator[tuple[ShuffleKey, Any]]:
    """An owner's sorted exchange as the items ``owner.play_partition`` takes: each report,
    then each row's ``RowValue`` (its line decoded; a split UPDATE's half keeps one image and
    only its DELETE half counts as the feed's row). ``tables`` are the plan DDLs' tables, by
    ``ref``: what a line's checksum is read against."""
    loads = orjson.loads
    for batch in batches:
        columns = [batch.column(i).to_pylist() for i in range(len(ARROW_SCHEMA))]
        for owner, ts, hi, lo, part, ref, line, report in zip(*columns, strict=True):
            key = (owner, ts, hi << LO_BITS | lo)
            if report is not None:
                yield key, pickle.loads(report)
                continue
            obj = loads(line)
            size = len(line.rstrip(b"\r\n"))
            checksum = None
            if "checksum" in obj:  # the one cost of a row without a checksum
                checksum = _checksum(obj, tables[ref], ts, part)
            value: RowValue
            if part == WHOLE:
                before, after = obj.get("before"), obj.get("after")
                value = (ref, obj["startTs"], before, after, size, True, checksum)
            elif part == DELETE_HALF:
                value = (ref, obj["startTs"], obj["before"], None, size, True, checksum)
            else:
                value = (ref, obj["startTs"], None, obj["after"], size, False, checksum)
            yield key, value


def _checksum(
    obj: dict[str, Any], table: TableInfo | None, commit_ts: int, part: int
) -> RowChecksum:
    """The checksum the inline engine gives the row of ``obj`` (or the ``part`` half of it):
    the reader's ``parse_checksum`` over the line's whole row (stage one accepted it there, so
    it raises nothing here), then, for a half, what ``split_update`` leaves that half."""
    assert table is not None  # rows only name DDLs with a table
    row = RowChangedEvent(obj["startTs"], commit_ts, table, obj.get("before"), obj.get("after"))
    row.checksum = parse_checksum(obj["checksum"], row)
    if part != WHOLE:
        delete, insert = split_update(row)
        row = delete if part == DELETE_HALF else insert
    assert row.checksum is not None
    return row.checksum
