"""The feed's exchange between stage one and the partition owners, in Arrow columns.

Stage one hands every routed row to the JVM as a row of ``EXCHANGE_SCHEMA``: the owner, the
ordering key (commitTs, and the feed place's ``seq`` cut into two longs), which half of a split
UPDATE it is, its table's plan DDL and where its line is (the file's rank, the line's offset
and size: ``feed_lines.py``), about 45 bytes whatever the line's length. The JVM moves each
row to its owner's partition (``repartitionById``) and sorts it by (commitTs, seq); no Python
object is pickled per row and no line crosses into the JVM. A split's ``ChunkReport`` travels
in the same schema (``report``, pickled once per split and owner) with commitTs -1, so it
sorts ahead of every row, where the owner checks it before writing anything. The owner reads
each line back from its file and decodes it once (``exchanged_items``): stage one has already
checked it against the schema of its table at that point of the feed.
A line's optional ``checksum`` travels in its bytes too: the owner reads it as the reader
does, from the line's whole row, and gives a split UPDATE's half the checksum the table
sink's split gives it, so both engines write the same checksums.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np
import orjson
import pyarrow as pa

from tisink.feed.format.checksums import parse_checksum
from tisink.feed.spark.feed_lines import FeedLines, LineRun
from tisink.feed.spark.plan import RECORD_SUB
from tisink.feed.spark.reports import ChunkReport
from tisink.feed.spark.tasks.routing import RowValue, ShuffleKey
from tisink.model.events import RowChangedEvent, RowChecksum
from tisink.model.table import TableInfo
from tisink.tablesink.split import split_update

EXCHANGE_SCHEMA = (
    "owner int, ts long, hi long, lo long, part byte, ref int, file int, at long, size int, "
    "report binary"
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
        ("file", pa.int32()),
        ("at", pa.int64()),
        ("size", pa.int32()),
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
"""Stage one hands its rows to the JVM once this many have gathered (checked after each run
of lines, ``feed_lines.RUN_BYTES``, so a batch holds up to this plus one run's rows)."""

RESULT_SCHEMA = "result binary"
"""What an owner's task returns: its pickled ``TaskResult``, one row."""
RESULT_ARROW = pa.schema([("result", pa.binary())])


class ExchangeBatches:
    """Stage one's output, gathered column by column into Arrow batches. A row's line is
    named by its index in the current run (``lines_from``), whose offsets and sizes are
    taken in bulk."""

    def __init__(self) -> None:
        self._keys: list[list[int]] = [[] for _ in range(6)]  # owner, ts, hi, lo, part, ref
        self._places: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # file, at, size
        self._run: LineRun | None = None
        self._rank = 0
        self._picks: list[int] = []
        self._reports: list[tuple[int, bytes]] = []

    def __len__(self) -> int:
        return len(self._keys[0])

    def lines_from(self, run: LineRun, rank: int) -> None:
        """The lines (of the file of ``rank``) the next rows' indexes name."""
        self._close_run()
        self._run, self._rank = run, rank

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

    def report(self, report: ChunkReport, tasks: int) -> None:
        """``report`` to each of the ``tasks`` owner tasks (pickled once), addressed to owner
        ``task``, which only that task plays."""
        data = pickle.dumps(report, pickle.HIGHEST_PROTOCOL)
        self._reports.extend((task, data) for task in range(tasks))

    def take(self) -> Iterator[pa.RecordBatch]:
        """The rows gathered so far, then the reports, as batches; the builder starts empty
        again (with the same current lines)."""
        self._close_run()
        if self._places:
            keys = zip(self._keys, list(ARROW_SCHEMA)[:6], strict=True)
            arrays = [pa.array(c, f.type) for c, f in keys]
            places = zip(zip(*self._places, strict=True), list(ARROW_SCHEMA)[6:9], strict=True)
            arrays += [pa.array(np.concatenate(column), f.type) for column, f in places]
            arrays.append(pa.nulls(len(arrays[0]), pa.binary()))
            yield pa.RecordBatch.from_arrays(arrays, schema=ARROW_SCHEMA)
        if self._reports:
            count = len(self._reports)
            owners = pa.array([owner for owner, _ in self._reports], pa.int32())
            arrays = [owners, pa.array([-1] * count, pa.int64())]
            arrays += [pa.array([0] * count, f.type) for f in list(ARROW_SCHEMA)[2:9]]
            arrays.append(pa.array([report for _, report in self._reports], pa.binary()))
            yield pa.RecordBatch.from_arrays(arrays, schema=ARROW_SCHEMA)
        self._keys = [[] for _ in range(6)]
        self._places, self._reports = [], []

    def _close_run(self) -> None:
        if self._picks:
            assert self._run is not None
            picks = np.array(self._picks, np.intp)
            files = np.full(len(picks), self._rank, np.int32)
            self._places.append((files, self._run.at[picks], self._run.sizes[picks]))
            self._picks = []


def exchanged_items(
    batches: Iterable[pa.RecordBatch], tables: Sequence[TableInfo | None], lines: FeedLines
) -> Iterator[tuple[ShuffleKey, Any]]:
    """An owner's sorted exchange as the items ``owner.play_partition`` takes: each report,
    then each row's ``RowValue`` (its line read back from ``lines`` and decoded; a split
    UPDATE's half keeps one image and only its DELETE half counts as the feed's row).
    ``tables`` are the plan DDLs' tables, by ``ref``: what a line's checksum is read
    against."""
    loads = orjson.loads
    readers: dict[int, Any] = {}
    for batch in batches:
        columns = [batch.column(i).to_pylist() for i in range(len(ARROW_SCHEMA))]
        for owner, ts, hi, lo, part, ref, file, at, size, report in zip(*columns, strict=True):
            key = (owner, ts, hi << LO_BITS | lo)
            if report is not None:
                yield key, pickle.loads(report)
                continue
            read = readers.get(file)
            if read is None:
                read = readers[file] = lines.reader(file)
            line = read(size, at)
            obj = loads(line)
            size = len(line.rstrip(b"\r"))
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
