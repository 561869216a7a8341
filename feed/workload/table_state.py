"""One table's side of a workload: its RNG, its live rows and the row changes it commits.

The table keeps the current image of every live row, so an UPDATE's or DELETE's ``before`` is
exactly what the table held. Images are never changed in place (rows already handed out may
still be waiting in a sink): an update stores a new dict, a DDL rebuilds them.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import orjson

from tisink.feed.records import FeedDDL, FeedRow
from tisink.feed.values import compile_check
from tisink.feed.workload.scenario import TableSpec
from tisink.feed.workload.schedule import PlannedDDL, PlannedTxn, derive_seed
from tisink.feed.workload.values import ValueGen, compile_generator, key_generator, oversized_value
from tisink.feed.writer import row_record
from tisink.model.events import DDLType, RowChangedEvent
from tisink.model.table import ColumnInfo, TableInfo

Image = dict[str, Any]
MAX_UPDATED_COLUMNS = 3


class TableState:
    """Generates the rows of one scenario table, deterministically from (seed, table name)."""

    def __init__(self, spec: TableSpec, seed: int) -> None:
        self.spec = spec
        self.rng = random.Random(derive_seed(seed, "table", spec.qualified_name))
        self.info: TableInfo | None = None
        self._sizes = {c.column.name: c.size for c in spec.columns}
        self._null_ratio = {c.column.name: c.null_ratio for c in spec.columns}
        self._seqs: list[int] = []
        self._images: list[Image] = []
        self._seq = 0
        self._inserts = 0
        self._plan: list[tuple[str, bool, float, ValueGen]] = []
        self._keys: list[tuple[str, Callable[[int], Any]]] = []
        self._mutable: list[str] = []
        self._by_name: dict[str, tuple[bool, float, ValueGen]] = {}
        self._columns: dict[str, ColumnInfo] = {}
        self._order: tuple[str, ...] = ()

    # --- schema ---------------------------------------------------------------------------

    def apply_ddl(self, planned: PlannedDDL) -> FeedDDL:
        event = planned.event
        kind = event.ddl_type
        if kind in (DDLType.TRUNCATE, DDLType.ERASE):
            self._seqs, self._images = [], []
        if planned.spec is not None and planned.spec.column is not None:
            spec = planned.spec.column
            self._sizes[spec.column.name] = spec.size
            self._null_ratio[spec.column.name] = spec.null_ratio
        self.info = None if kind is DDLType.ERASE else event.table
        if self.info is not None:
            self._compile(self.info)
            if event.pre_table is not None and kind is DDLType.ALTER:
                self._images = [self._reshape(image, event.pre_table) for image in self._images]
        return FeedDDL(event.commit_ts, event.start_ts, event)

    def _compile(self, info: TableInfo) -> None:
        unique = {name for index in info.indexes if index.unique for name in index.columns}
        self._plan, self._keys, self._mutable, self._by_name = [], [], [], {}
        self._columns = {c.name: c for c in info.stored_columns}
        self._order = tuple(self._columns)
        name = info.qualified_name
        for col in info.stored_columns:
            if col.name in unique:
                self._keys.append((col.name, key_generator(col, name)))
                continue
            gen = compile_generator(col, self._sizes.get(col.name))
            ratio = self._null_ratio.get(col.name, 0.1) if col.nullable else 0.0
            self._plan.append((col.name, col.nullable, ratio, gen))
            self._by_name[col.name] = (col.nullable, ratio, gen)
            self._mutable.append(col.name)

    def _reshape(self, image: Image, pre: TableInfo) -> Image:
        """An image of the new schema: added columns take their default, dropped ones go,
        modified ones keep values that still fit and get new ones otherwise."""
        assert self.info is not None
        old = pre.column_by_name
        out: Image = {}
        for col in self.info.stored_columns:
            if col.name not in old:
                out[col.name] = col.default
            elif col != old[col.name] and not _fits(col, image[col.name]):
                out[col.name] = self._by_name[col.name][2](self.rng)
            else:
                out[col.name] = image[col.name]
        return out

    # --- rows -----------------------------------------------------------------------------

    def commit(self, txn: PlannedTxn) -> list[FeedRow]:
        """The ``txn.size`` row changes of one transaction; a row is touched at most once."""
        info = self.info
        assert info is not None, "the schedule gave rows to a table that does not exist"
        insert_p, update_p, _ = self.spec.mix
        rng = self.rng
        touched: set[int] = set()
        out = []
        for _ in range(txn.size):
            draw = rng.random()
            before = after = None
            index = self._pick() if self._seqs and draw >= insert_p else -1
            if index < 0 or self._seqs[index] in touched:
                after = self._insert()
                touched.add(self._seq)
            else:
                touched.add(self._seqs[index])
                before = self._images[index]
                if draw < insert_p + update_p and self._mutable:
                    after = self._update(before)
                    self._images[index] = after
                else:
                    self._remove(index)
            row = RowChangedEvent(txn.start_ts, txn.commit_ts, info, before, after)
            row.approximate_size = len(orjson.dumps(row_record(row)))
            out.append(FeedRow(row))
        return out

    def _pick(self) -> int:
        count = len(self._seqs)
        u = self.rng.random()
        if self.spec.keys == "uniform":
            return int(u * count)
        s = self.spec.zipf_s
        # inverse CDF of the continuous 1/x^s law on [1, count + 1): rank 1 is the hottest
        if abs(s - 1.0) < 1e-9:
            rank = math.exp(u * math.log(count + 1))
        else:
            rank = ((math.pow(count + 1, 1 - s) - 1) * u + 1) ** (1 / (1 - s))
        return min(int(rank) - 1, count - 1)

    def _insert(self) -> Image:
        self._seq += 1
        self._inserts += 1
        seq, rng = self._seq, self.rng
        image: Image = {name: gen(seq) for name, gen in self._keys}
        for name, nullable, ratio, gen in self._plan:
            image[name] = None if nullable and rng.random() < ratio else gen(rng)
        big = self.spec.oversized
        if big is not None and self._inserts % big.every == 0 and big.column in image:
            col = self._columns[big.column]
            image[big.column] = oversized_value(col, big.nbytes, rng)
        image = {name: image[name] for name in self._order}
        self._seqs.append(seq)
        self._images.append(image)
        return image

    def _update(self, before: Image) -> Image:
        rng = self.rng
        after = dict(before)
        count = rng.randint(1, min(MAX_UPDATED_COLUMNS, len(self._mutable)))
        for name in rng.sample(self._mutable, count):
            nullable, ratio, gen = self._by_name[name]
            after[name] = None if nullable and rng.random() < ratio else gen(rng)
        return after

    def _remove(self, index: int) -> None:
        last = len(self._seqs) - 1
        self._seqs[index], self._images[index] = self._seqs[last], self._images[last]
        self._seqs.pop()
        self._images.pop()


def _fits(col: ColumnInfo, value: Any) -> bool:
    """Whether a value kept through MODIFY COLUMN is still valid (DDLs are rare: the check
    is compiled per call)."""
    if value is None:
        return col.nullable
    return compile_check(col)(value) is None
