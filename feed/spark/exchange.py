"""The feed's exchange between stage one and the partition owners: packed rows in Arrow.

Stage one describes every routed row in ``ROW``: the owner, the ordering key (commitTs, and
the feed place's ``seq`` cut into two longs), which half of a split UPDATE it is, its table's
plan DDL and where its line is (the file's rank, the line's offset and size:
``feed_lines.py``), 45 bytes whatever the line's length. It sorts what it gathered by owner and
key and hands the JVM each owner's rows packed in chunks of up to ``CHUNK_ROWS``, one Arrow
row each (``EXCHANGE_SCHEMA``), keyed by the chunk's first row. The JVM moves each chunk to
its owner's task (``repartitionById``) and sorts the chunks by that key; it handles one row
per chunk, not per feed row (a feed row cost the JVM about 4 us in Arrow conversions, the
shuffle and the sort). The task merges the chunks back into one sorted stream of rows
(``Exchanged.rows``): a chunk's rows all sort at or after its first, so once the next chunk
starts, what sorts before it is final. No Python object is pickled per row and no line
crosses into the JVM.

A split's ``ChunkReport`` travels in the same schema (``report``, pickled once per split and
stage-two task) with commitTs -1, so it sorts ahead of every chunk, where the task checks it
before writing anything. The task reads each line back from its file and decodes it once
(``owner.exchange_stream``): stage one has already checked it against the schema of its table
at that point of the feed. A line's optional ``checksum`` travels in its bytes too: the owner
reads it as the reader does, from the line's whole row, and gives a split UPDATE's half the
checksum the table sink's split gives it, so both engines write the same checksums.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np
import pyarrow as pa

from tisink.feed.format.checksums import parse_checksum
from tisink.feed.spark.feed_lines import LineRun
from tisink.feed.spark.plan import LO_BITS, LO_MASK
from tisink.feed.spark.reports import ChunkReport
from tisink.feed.spark.tasks.routing import DELETE_HALF, WHOLE
from tisink.model.events import RowChangedEvent, RowChecksum
from tisink.model.table import TableInfo
from tisink.tablesink.split import split_update

ROW = np.dtype(
    [
        ("owner", "<i4"),
        ("ts", "<i8"),
        ("hi", "<i8"),
        ("lo", "<i8"),
        ("part", "i1"),
        ("ref", "<i4"),
        ("file", "<i4"),
        ("at", "<i8"),
        ("size", "<i4"),
    ]
)
"""One routed row, packed (45 bytes): ``exchange_stream`` takes these fields in this order."""
FIELDS: tuple[str, ...] = ROW.names or ()
EXCHANGE_SCHEMA = "owner int, ts long, hi long, lo long, rows binary, report binary"
"""The exchange as Spark's ``mapInArrow`` declares it: a chunk of one owner's rows (``rows``,
keyed by its first row), or a report."""
ARROW_SCHEMA = pa.schema(
    [
        ("owner", pa.int32()),
        ("ts", pa.int64()),
        ("hi", pa.int64()),
        ("lo", pa.int64()),
        ("rows", pa.binary()),
        ("report", pa.binary()),
    ]
)
ORDER = ("ts", "hi", "lo")
"""The owners' order: commitTs, then the feed place (reports first, at commitTs -1)."""
BATCH_ROWS = 8192
"""Stage one hands its rows to the JVM once this many have gathered (checked after each run
of lines, ``feed_lines.RUN_BYTES``, so a batch holds up to this plus one run's rows)."""
CHUNK_ROWS = 1456
"""Rows in a chunk at most (64 KB): Spark's Arrow batches of up to 10,000 records
(``spark.sql.execution.arrow.maxRecordsPerBatch``) stay far below Arrow's 2 GB."""
REPORT = 5
"""The index of ``report`` in the exchange's schema."""

RESULT_SCHEMA = "result binary"
"""What an owner's task returns: its pickled ``TaskResult``, one row."""
RESULT_ARROW = pa.schema([("result", pa.binary())])


class ExchangeBatches:
    """Stage one's output, gathered column by column into Arrow batches. A row's line is
    named by its index in the current run (``lines_from``), whose offsets and sizes are
    taken in bulk. Rows come one at a time (``add``) or a table's run at a time
    (``add_rows``, the router's bulk path)."""

    def __init__(self, chunk_rows: int = CHUNK_ROWS) -> None:
        self._chunk_rows = chunk_rows
        self._rows: list[tuple[int, int, int, int, int, int]] = []  # ``add``'s arguments
        self._chunks: list[tuple[np.ndarray, ...]] = []  # the columns before ``report``
        self._run: LineRun | None = None
        self._rank = 0
        self._count = 0
        self._reports: list[tuple[int, bytes]] = []

    def __len__(self) -> int:
        return self._count + len(self._rows)

    def lines_from(self, run: LineRun, rank: int) -> None:
        """The lines (of the file of ``rank``) the next rows' indexes name."""
        self._close_run()
        self._run, self._rank = run, rank

    def add(self, owner: int, ts: int, seq: int, part: int, ref: int, index: int) -> None:
        """A routed row (or half of one: ``part``) of plan DDL ``ref`` on line ``index`` of
        the current lines (``RowRouter.route_to``)."""
        self._rows.append((owner, ts, seq, part, ref, index))

    def add_rows(
        self,
        owners: np.ndarray,
        ts: np.ndarray,
        hi: int,
        lo: np.ndarray,
        ref: int,
        indexes: np.ndarray,
    ) -> None:
        """Whole rows of plan DDL ``ref`` on lines ``indexes`` of the current lines, their
        seqs ``hi << LO_BITS | lo`` (``RowRouter.route_run``)."""
        self._chunk(owners, ts, np.full(len(ts), hi, np.int64), lo, WHOLE, ref, indexes)

    def report(self, report: ChunkReport, tasks: int) -> None:
        """``report`` to each of the ``tasks`` owner tasks (pickled once), addressed to owner
        ``task``, which only that task plays."""
        data = pickle.dumps(report, pickle.HIGHEST_PROTOCOL)
        self._reports.extend((task, data) for task in range(tasks))

    def take(self) -> Iterator[pa.RecordBatch]:
        """The rows gathered so far, sorted by owner and key and packed in chunks, then the
        reports, as batches; the builder starts empty again (with the same current lines)."""
        self._close_run()
        if self._chunks:
            rows = np.empty(self._count, ROW)
            for name, column in zip(FIELDS, zip(*self._chunks, strict=True), strict=True):
                rows[name] = np.concatenate(column)
            rows = rows[np.lexsort((rows["lo"], rows["hi"], rows["ts"], rows["owner"]))]
            owners = rows["owner"]
            starts = np.flatnonzero(np.diff(owners, prepend=owners[0] - 1))
            ends = np.append(starts[1:], len(rows))
            firsts = np.concatenate(
                [np.arange(a, b, self._chunk_rows) for a, b in zip(starts, ends, strict=True)]
            )
            lasts = np.append(firsts[1:], len(rows))
            heads = rows[firsts]
            chunks = [
                rows[a:b].tobytes() for a, b in zip(firsts.tolist(), lasts.tolist(), strict=True)
            ]
            arrays = [pa.array(heads[name]) for name in ("owner", *ORDER)]
            arrays += [pa.array(chunks, pa.binary()), pa.nulls(len(chunks), pa.binary())]
            yield pa.RecordBatch.from_arrays(arrays, schema=ARROW_SCHEMA)
        if self._reports:
            count = len(self._reports)
            owners = pa.array([owner for owner, _ in self._reports], pa.int32())
            arrays = [owners, pa.array([-1] * count, pa.int64())]
            arrays += [pa.array([0] * count, pa.int64())] * 2 + [pa.nulls(count, pa.binary())]
            arrays.append(pa.array([report for _, report in self._reports], pa.binary()))
            yield pa.RecordBatch.from_arrays(arrays, schema=ARROW_SCHEMA)
        self._chunks, self._reports = [], []
        self._count = 0

    def _close_run(self) -> None:
        if self._rows:
            owners, tss, seqs, parts, refs, indexes = zip(*self._rows, strict=True)
            self._rows = []
            self._chunk(
                np.array(owners, np.int32),
                np.array(tss, np.int64),
                np.array([seq >> LO_BITS for seq in seqs], np.int64),
                np.array([seq & LO_MASK for seq in seqs], np.int64),
                np.array(parts, np.int8),
                np.array(refs, np.int32),
                np.array(indexes, np.intp),
            )

    def _chunk(
        self,
        owners: np.ndarray,
        ts: np.ndarray,
        hi: np.ndarray,
        lo: np.ndarray,
        part: np.ndarray | int,
        ref: np.ndarray | int,
        indexes: np.ndarray,
    ) -> None:
        run = self._run
        assert run is not None
        count = len(indexes)
        parts = np.full(count, part, np.int8) if isinstance(part, int) else part
        refs = np.full(count, ref, np.int32) if isinstance(ref, int) else ref
        files = np.full(count, self._rank, np.int32)
        at, sizes = run.at[indexes], run.sizes[indexes]
        self._chunks.append((owners, ts, hi, lo, parts, refs, files, at, sizes))
        self._count += count


class Exchanged:
    """One owner task's sorted exchange (``exchange.py``), read once: first the reports ahead
    of its chunks, then its rows' columns (``FIELDS``) a merged batch at a time
    (``owner.exchange_stream`` reads each row's line back and builds its event)."""

    def __init__(self, batches: Iterable[pa.RecordBatch]) -> None:
        self._batches = iter(batches)
        self._rest: tuple[pa.RecordBatch, int] | None = None

    def reports(self) -> list[tuple[int, ChunkReport]]:
        """(the owner each is addressed to, report) of the reports ahead of the rows."""
        found: list[tuple[int, ChunkReport]] = []
        for batch in self._batches:
            reports = batch.column(REPORT).to_pylist()
            owners = batch.column(0).to_pylist()
            for index, report in enumerate(reports):
                if report is None:
                    self._rest = (batch, index)
                    return found
                found.append((owners[index], pickle.loads(report)))
        return found

    def rows(self) -> Iterator[list[list[Any]]]:
        """The rows of the chunks after the reports, in key order, as columns."""
        for rows in merged_chunks(self._chunks()):
            yield [rows[name].tolist() for name in FIELDS]

    def _chunks(self) -> Iterator[bytes]:
        if self._rest is not None:
            batch, start = self._rest
            self._rest = None
            yield from batch.column(REPORT - 1).slice(start).to_pylist()
        for batch in self._batches:
            yield from batch.column(REPORT - 1).to_pylist()


def merged_chunks(chunks: Iterable[bytes]) -> Iterator[np.ndarray]:
    """The rows of packed chunks, each sorted and the chunks sorted by their first rows' keys,
    in key order: once a chunk starts, the rows held back that sort before its first are
    final (no later row sorts before it), and the rest wait, merged with it."""
    held = np.empty(0, ROW)
    for chunk in chunks:
        rows = np.frombuffer(chunk, ROW)
        if not len(rows):
            continue
        if len(held):
            done = _before(held, rows[0])
            if done:
                yield held[:done]
            rest = held[done:]
            held = rows
            if len(rest):  # they sort at or after ``rows[0]``: merged with ``rows``
                held = np.concatenate([rest, rows])
                held = held[np.lexsort((held["lo"], held["hi"], held["ts"]))]
        else:
            held = rows
    if len(held):
        yield held


def _before(rows: np.ndarray, key: np.void) -> int:
    """How many of the sorted ``rows`` sort before the row ``key``."""
    ts, hi, lo = rows["ts"], rows["hi"], rows["lo"]
    same_ts = ts == key["ts"]
    sooner = (hi < key["hi"]) | ((hi == key["hi"]) & (lo < key["lo"]))
    return int(np.count_nonzero((ts < key["ts"]) | (same_ts & sooner)))


def exchanged_checksum(
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
