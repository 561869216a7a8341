"""The rows of a selectable table, built from its window plan (``window``).

Every process that generates the table makes the same plan with array operations; it then
builds only the rows it keeps (all of them without a selection). A transaction that touches
no kept row costs one marker, whatever its size, so a Spark task's work grows with the rows
it owns, not with the workload. A kept row's image lives here, by sequence number, for the
UPDATEs and the DELETE that come to it; a row's values come from its own stream, as in
``TableState``.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Sequence
from typing import Any

import numpy as np
import orjson

from tisink.feed.format.records import FeedRow
from tisink.feed.format.values import Check
from tisink.feed.workload.draws import row_seed
from tisink.feed.workload.errors import ScenarioError
from tisink.feed.workload.selection import KeepRow, KeepsInBulk, RowSelection, SkippedRow
from tisink.feed.workload.specs import TableSpec
from tisink.feed.workload.steps import PlannedTxn, derive_seed
from tisink.feed.workload.table_state import TableState, stored_json
from tisink.feed.workload.values import oversized_value
from tisink.feed.workload.window import DELETE, INSERT, TableTxns, WindowPlan, plan_window
from tisink.model.events import RowChangedEvent
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo, TableInfo

_AFTER = len(b',"after":')
_BEFORE = len(b',"before":')
_CHUNK = 1 << 15
"""Rows of the plan turned into Python lists at a time."""
_Chunk = tuple[int, list[int], list[int], list[int] | None, list[int] | None]
"""A chunk of the plan as lists: its first row, kinds and keys, the indexes of the kept rows
(None: every one) and their partitions (None: not known)."""


def table_window(spec: TableSpec, seed: int, txns: TableTxns) -> WindowPlan:
    """The window plan of the scenario table ``spec`` over its transactions ``txns``."""
    keys = {name for index in spec.indexes for name in index.columns}
    mutable = any(c.column.name not in keys for c in spec.columns)
    salt = derive_seed(seed, "window", spec.qualified_name)
    return plan_window(txns, spec.mix, mutable, spec.keys, spec.zipf_s, salt)


class WindowTable(TableState):
    """A ``selectable`` table's rows: planned in bulk, built where kept."""

    def __init__(
        self,
        spec: TableSpec,
        seed: int,
        txns: TableTxns,
        select: RowSelection | None = None,
        modifies: list[ColumnInfo] | None = None,
        positions: np.ndarray | None = None,
        plan: WindowPlan | None = None,
    ) -> None:
        super().__init__(spec, seed, modifies or ())
        self._select = select
        self._keep: tuple[TableInfo, KeepRow | None] | None = None
        """The selection's test of the current table version, asked once per version."""
        self._txns = txns
        self._positions = positions
        """Where the table's transactions are among the schedule's (for ``kept_between``)."""
        self._kept_positions: np.ndarray | None = None
        self._seed = seed
        self._plan = plan
        """Made here when first needed, unless given (``table_window``, made once for all)."""
        self._txn = 0
        """The index of the next transaction among the table's own."""
        self._built: dict[int, bytes] = {}
        """The JSON of each kept live row, by sequence number."""
        self._kept: np.ndarray | None = None
        """Whether each sequence number is kept (None: every one)."""
        self._partitions: np.ndarray | None = None
        """The partition the selection found for each sequence number, where it did
        (``BulkKeep``): a built row carries it (``RowChangedEvent.partition``)."""
        self._txn_kept: bytearray | None = None
        """Whether each transaction touches a kept row (1) or not (0)."""
        self._starts = array("q")
        """The plan's transaction starts, for indexing without numpy's per-item cost."""
        self._chunk: _Chunk = (-1, [], [], None, None)

    # --- the plan -------------------------------------------------------------------------

    def _window(self) -> WindowPlan:
        if self._plan is None:
            self._plan = table_window(self.spec, self._seed, self._txns)
        if not self._starts:
            self._starts = array("q", self._plan.starts.astype(np.int64).tobytes())
        return self._plan

    def prepare(self, index: int) -> None:
        """Be ready for transaction ``index`` (of the table's own) and after: the plan made,
        and with a selection, its test of the current table version asked (once the
        version's DDL went out: the selection may learn the table from it)."""
        if self._select is None:
            self._window()
        elif self.info is not None:
            self._keeper(self.info, index)

    def kept_between(self, start: int, end: int) -> np.ndarray:
        """The schedule positions in [start, end) of the transactions that touch a kept row
        (``prepare`` first)."""
        kept = self._positions if self._kept_positions is None else self._kept_positions
        assert kept is not None, "a table made without its positions"
        low, high = np.searchsorted(kept, (start, end))
        return kept[low:high]

    def _keeper(self, info: TableInfo, index: int) -> KeepRow | None:
        """The selection's test for this table version, asked when its first rows come;
        the sequence numbers it keeps are worked out for the whole plan at once."""
        assert self._select is not None
        if self._keep is None or self._keep[0] is not info:
            keep = self._select.keeper(info, tuple(name for name, _ in self._keys))
            self._adopt(keep, first=self._keep is None, index=index)
            self._keep = (info, keep)
        return self._keep[1]

    def _adopt(self, keep: KeepRow | None, first: bool, index: int) -> None:
        """Take a table version's test: rows no longer kept are let go; a row stepped over
        that it now keeps cannot be built (``selectable`` leaves out the DDLs that do this:
        a bug, not a workload to refuse)."""
        plan = self._window()
        kept, partitions = (None, None) if keep is None else self._kept_keys(plan, keep)
        if not first:
            now = int(plan.starts[index])
            born = int(np.count_nonzero(plan.kinds[:now] == INSERT))
            later = plan.keys[now:][plan.kinds[now:] != INSERT]
            later = later[later <= born]
            before = np.ones(plan.born + 1, dtype=bool) if self._kept is None else self._kept
            after = np.ones(plan.born + 1, dtype=bool) if kept is None else kept
            gained = later[after[later] & ~before[later]]
            if gained.size:
                raise ScenarioError(
                    f"a DDL moved row {int(gained[0])} to this partition owner, which "
                    "stepped over it",
                    table=self.spec.qualified_name,
                )
            if kept is not None:
                self._built = {seq: row for seq, row in self._built.items() if kept[seq]}
        self._kept, self._partitions = kept, partitions
        if kept is None or len(plan.starts) < 2:
            self._txn_kept = self._kept_positions = None
        else:
            touched = np.add.reduceat(kept[plan.keys].astype(np.int64), plan.starts[:-1]) > 0
            self._txn_kept = bytearray(touched.astype(np.uint8).tobytes())
            if self._positions is not None:
                self._kept_positions = self._positions[touched]
        self._chunk = (-1, [], [], None, None)

    def _kept_keys(self, plan: WindowPlan, keep: KeepRow) -> tuple[np.ndarray, np.ndarray | None]:
        """Whether each sequence number 1 .. born is kept: all at once where the selection
        can (an integer key column, whose value is the sequence number), with the partitions
        it found, else one by one."""
        keys = self._keys
        kept = np.zeros(plan.born + 1, dtype=bool)
        select, info = self._select, self.info
        if isinstance(select, KeepsInBulk) and info is not None and plan.born:
            for name, key in keys:
                if info.column_by_name[name].family not in (TypeFamily.INT, TypeFamily.BIGINT):
                    continue
                key(plan.born)  # the largest key fits the column type (else ScenarioError)
                seqs = np.arange(1, plan.born + 1, dtype=np.int64)
                bulk = select.kept_integers(info, name, seqs)
                if bulk is not None:
                    kept[1:] = bulk.kept
                    if bulk.partitions is None:
                        return kept, None
                    partitions = np.zeros(plan.born + 1, dtype=np.int64)
                    partitions[1:] = bulk.partitions
                    return kept, partitions
        kept[1:] = np.fromiter(
            (keep({name: key(seq) for name, key in keys}) for seq in range(1, plan.born + 1)),
            dtype=bool,
            count=plan.born,
        )
        return kept, None

    def _chunk_at(self, first: int, end: int) -> _Chunk:
        """The chunk of the plan holding rows ``first`` .. ``end``: its start, kinds and keys,
        the indexes of its kept rows and their partitions, so that a task owning a sixth of
        the rows steps over the rest without looking at them."""
        plan = self._window()
        stop = max(end, first + _CHUNK)
        kinds = plan.kinds[first:stop].tolist()
        seqs = plan.keys[first:stop]
        kept = partitions = None
        if self._kept is not None:
            picked = np.flatnonzero(self._kept[seqs])
            kept = picked.tolist()
            if self._partitions is not None:
                partitions = self._partitions[seqs[picked]].tolist()
        chunk = self._chunk = (first, kinds, seqs.tolist(), kept, partitions)
        return chunk

    # --- rows -----------------------------------------------------------------------------

    def commit(self, txn: PlannedTxn) -> list[FeedRow | SkippedRow]:
        """The rows of the table's next transaction (``txn``: its size and timestamps)."""
        index = self._txn if txn.ordinal < 0 else txn.ordinal
        return self.commit_run([txn.size], [txn.commit_ts], [txn.start_ts], [index])

    def commit_run(
        self,
        sizes: Sequence[int],
        commits: Sequence[int],
        starts: Sequence[int],
        ordinals: Sequence[int],
    ) -> list[FeedRow | SkippedRow]:
        """The rows of a run of the table's transactions, in order (each one's size,
        timestamps and place among the table's own), with no DDL between them: the table's
        version is asked once, and each transaction costs a turn of this loop, not a walk of
        calls (a Spark task owning a sixth of the rows builds a part of most transactions)."""
        info = self.info
        assert info is not None, "the schedule gave rows to a table that does not exist"
        self.prepare(ordinals[0])
        new_image, update = self._new_image, self._update_draws
        assert new_image is not None and update is not None
        salt, built, big, loads = self._salt, self._built, self.spec.oversized, orjson.loads
        txn_kept, bounds, table_id = self._txn_kept, self._starts, info.table_id
        base, kinds, keys, kept, partitions = self._chunk
        out: list[FeedRow | SkippedRow] = []
        for size, commit_ts, start_ts, index in zip(sizes, commits, starts, ordinals, strict=True):
            first, end = bounds[index], bounds[index + 1]
            assert end - first == size, "the recorded schedule and the walk disagree"
            if txn_kept is not None and not txn_kept[index]:
                out.append(SkippedRow(commit_ts, info, size))
                continue
            if base < 0 or first < base or end > base + len(kinds):
                base, kinds, keys, kept, partitions = self._chunk_at(first, end)
            at = first - base
            if kept is None:
                low, high = at, at + size
            else:
                low = bisect_left(kept, at)
                high = bisect_left(kept, at + size, low)
            envelope = 6 + len(
                b'{"type":"row","commitTs":%d,"startTs":%d,"tableID":%d,"op":""}'
                % (commit_ts, start_ts, table_id)
            )
            number_of = first + 1 - at  # a chunk index's row number
            following = at  # the chunk index after the last row accounted for
            for pick in range(low, high):
                i = pick if kept is None else kept[pick]
                if i > following:
                    out.append(SkippedRow(commit_ts, info, i - following))
                following = i + 1
                kind, seq, number = kinds[i], keys[i], number_of + i
                before: dict[str, Any] | None = None
                after: dict[str, Any] | None = None
                if kind == INSERT:
                    after = new_image(row_seed(salt, number), seq)
                    if big is not None and seq % big.every == 0 and big.column in after:
                        state = row_seed(self._big_salt, number)
                        after[big.column] = oversized_value(
                            self._columns[big.column], big.nbytes, state
                        )
                    stored = built[seq] = stored_json(after)
                    nbytes = _AFTER + len(stored)
                elif kind == DELETE:
                    held = built.pop(seq)
                    before = loads(held)
                    nbytes = _BEFORE + len(held)
                else:
                    held = built[seq]
                    before = loads(held)
                    after = before.copy()
                    update(row_seed(salt, number), after)
                    stored = built[seq] = stored_json(after)
                    nbytes = _BEFORE + len(held) + _AFTER + len(stored)
                row = RowChangedEvent(start_ts, commit_ts, info, before, after)
                row.approximate_size = envelope + nbytes
                if partitions is not None:
                    row.partition = partitions[pick]
                out.append(FeedRow(row))
            last = at + end - first
            if following < last:
                out.append(SkippedRow(commit_ts, info, last - following))
        self._txn = ordinals[-1] + 1
        return out

    # --- schema hooks ---------------------------------------------------------------------

    def _clear_rows(self) -> None:
        self._built = {}

    def _reshape_rows(self, pre: TableInfo, fits: dict[str, Check], salt: int) -> None:
        self._built = {
            seq: stored_json(self._reshape(orjson.loads(row), pre, fits, salt, seq))
            for seq, row in self._built.items()
        }
