"""One table's side of a workload: its streams, its live rows and the row changes it commits.

Two kinds of draws make a table's rows. Its operation stream (``rng``, a ``random.Random``
seeded from (seed, table)) decides each row change's kind and which live row it touches: a
few draws a row, which every process that generates the table makes. A row's values come
from the row's own stream (``draws.row_seed`` of the table's salt and the row's number in the
table): a process that does not build a row (a Spark task that does not own its partition)
draws nothing for it, and the rows it builds are the same as everywhere.

The table keeps the current image of every live row, so an UPDATE's or DELETE's ``before`` is
exactly what the table held. It keeps each as its JSON (the feed line's own bytes, a third of
a dict's memory: a million-row play holds half a million live rows), which also gives the
line's length; a row an UPDATE or DELETE picks is read back. Images handed out are never
changed (rows may still be waiting in a sink): an update makes a new dict.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

import orjson

from tisink.feed.format.records import FeedDDL, FeedRow, split_moved
from tisink.feed.format.values import Check, compile_check
from tisink.feed.workload.draws import ValueGen, row_seed
from tisink.feed.workload.inserts import KeyPlan, NewImage, Update, ValuePlan, compile_draws
from tisink.feed.workload.selection import SkippedRow
from tisink.feed.workload.shaped import shaped_commit
from tisink.feed.workload.specs import Scenario, TableSpec
from tisink.feed.workload.steps import PlannedDDL, PlannedTxn, derive_seed
from tisink.feed.workload.values import column_code, key_generator, oversized_value
from tisink.model.events import DDLType, RowChangedEvent
from tisink.model.mysqltypes import INTEGER_RANGES, TypeFamily
from tisink.model.table import ColumnInfo, TableInfo

Image = dict[str, Any]
_AFTER = len(b',"after":')
_BEFORE = len(b',"before":')


class TableState:
    """Generates the rows of one scenario table, deterministically from (seed, table name).

    Each row's ``approximate_size`` is the length of its feed line, as the reader reports it:
    worked out from the JSON of its images, made once per image. This is the model of the
    tables a process must build whole (key-changing UPDATEs, transfers, RENAMEs: not
    ``selectable``); the others are ``window_table.WindowTable``s.
    """

    def __init__(
        self,
        spec: TableSpec,
        seed: int,
        modifies: Sequence[ColumnInfo] = (),
    ) -> None:
        self.spec = spec
        self._modifies = list(modifies)
        """The types the scenario's MODIFY COLUMNs still to come give columns: values are
        drawn to fit them (``values.column_code``)."""
        name = spec.qualified_name
        self.rng = random.Random(derive_seed(seed, "table", name))
        """The operation stream: each row change's kind and row, transfers' amounts."""
        self._salt = derive_seed(seed, "values", name)
        self._big_salt = derive_seed(seed, "oversized", name)
        self._alter_salt = derive_seed(seed, "alter", name)
        self._number = 0
        """Row changes made so far: the number of the next one's value stream."""
        self.info: TableInfo | None = None
        self._sizes = {c.column.name: c.size for c in spec.columns}
        self._null_ratio = {c.column.name: c.null_ratio for c in spec.columns}
        self._seqs: list[int] = []
        self._images: list[bytes] = []
        """The JSON of each live row's image."""
        self._seq = 0
        """The sequence number of the last insert: it makes the keys, and counts inserts."""
        self._new_image: NewImage | None = None
        self._update_draws: Update | None = None
        self._mutable: list[str] = []
        self._values: dict[str, ValueGen] = {}
        self._columns: dict[str, ColumnInfo] = {}
        self._keys: list[KeyPlan] = []
        self._key_share = spec.key_updates

    # --- schema ---------------------------------------------------------------------------

    def apply_ddl(self, planned: PlannedDDL) -> FeedDDL:
        event = planned.event
        kind = event.ddl_type
        if kind in (DDLType.TRUNCATE, DDLType.ERASE):
            self._clear_rows()
        if planned.spec is not None and planned.spec.column is not None:
            spec = planned.spec.column
            if planned.spec.action == "modify_column" and spec.column in self._modifies:
                self._modifies.remove(spec.column)
            self._sizes[spec.column.name] = spec.size
            self._null_ratio[spec.column.name] = spec.null_ratio
        self.info = None if kind is DDLType.ERASE else event.table
        if self.info is not None:
            self._compile(self.info)
            if event.pre_table is not None and kind is DDLType.ALTER:
                fits = self._fit_checks(event.pre_table)
                salt = row_seed(self._alter_salt, event.commit_ts)
                self._reshape_rows(event.pre_table, fits, salt)
        return FeedDDL(event.commit_ts, event.start_ts, event)

    def _clear_rows(self) -> None:
        """No row lives on (TRUNCATE, DROP TABLE)."""
        self._seqs, self._images = [], []

    def _reshape_rows(self, pre: TableInfo, fits: dict[str, Check], salt: int) -> None:
        """Every built row in the table's new schema (``_reshape``)."""
        self._images = [
            stored_json(self._reshape(orjson.loads(image), pre, fits, salt, seq))
            for seq, image in zip(self._seqs, self._images, strict=True)
        ]

    def _compile(self, info: TableInfo) -> None:
        unique = {name for index in info.indexes if index.unique for name in index.columns}
        keys: list[KeyPlan] = []
        plan: list[ValuePlan] = []
        self._mutable = []
        self._columns = {c.name: c for c in info.stored_columns}
        name = info.qualified_name
        for col in info.stored_columns:
            if col.name in unique:
                keys.append((col.name, key_generator(col, name)))
                continue
            if col.name == self.spec.conserved:
                continue  # only transfers change it; it is drawn at inserts all the same
            later = [c for c in self._modifies if c.name == col.name]
            code = column_code(col, self._sizes.get(col.name), f"v{len(plan)}", later)
            ratio = self._null_ratio.get(col.name, 0.1) if col.nullable else 0.0
            plan.append((col.name, col.nullable, ratio, code))
            self._mutable.append(col.name)
        self._keys = keys
        if self.spec.conserved is not None and self.spec.conserved in self._columns:
            col = self._columns[self.spec.conserved]
            plan.append((col.name, False, 0.0, column_code(col, None, f"v{len(plan)}")))
        mutable = len(self._mutable)
        draws = compile_draws(self.spec.qualified_name, keys, plan, tuple(self._columns), mutable)
        self._new_image, self._update_draws, self._values = draws

    def _fit_checks(self, pre: TableInfo) -> dict[str, Check]:
        """The value checks of the columns a MODIFY COLUMN changed, compiled once per DDL."""
        assert self.info is not None
        old = pre.column_by_name
        return {
            col.name: compile_check(col)
            for col in self.info.stored_columns
            if col.name in old and col != old[col.name]
        }

    def _reshape(
        self, image: Image, pre: TableInfo, fits: dict[str, Check], salt: int, seq: int
    ) -> Image:
        """An image of the new schema: added columns take their default, dropped ones go,
        modified ones keep their values in the new type's form (a number going to a DECIMAL
        or an integer rounded as the database rounds it: the draws kept it in range). Only a
        value no conversion fits (a change the scenario made lossy, such as text to a
        number) gets a new one, which no database holds: drawn from the stream of (the
        DDL's ``salt``, the row's ``seq``), so a row stepped over here changes nothing."""
        assert self.info is not None
        old = pre.column_by_name
        out: Image = {}
        for col in self.info.stored_columns:
            if col.name not in old:
                out[col.name] = col.default
            elif col.name in fits and not _fits(col, fits[col.name], image[col.name]):
                kept = _converted(col, image[col.name])
                fit = kept is not None and _fits(col, fits[col.name], kept)
                out[col.name] = kept if fit else self._values[col.name](row_seed(salt, seq))
            else:
                out[col.name] = image[col.name]
        return out

    # --- rows -----------------------------------------------------------------------------

    def commit(self, txn: PlannedTxn) -> list[FeedRow | SkippedRow]:  # the window's markers
        """The ``txn.size`` row changes of one transaction; a row is touched at most once."""
        info = self.info
        assert info is not None, "the schedule gave rows to a table that does not exist"
        assert self._new_image is not None
        if txn.preload or self.spec.conserved is not None:
            return list(shaped_commit(self, txn, info))
        key_share = self._key_share
        insert_p, update_p, _ = self.spec.mix
        update_p += insert_p
        rng, new_image, big = self.rng, self._new_image, self.spec.oversized
        update, salt = self._update_draws, self._salt
        assert update is not None
        mutable = bool(self._mutable)
        seqs, images = self._seqs, self._images
        start_ts, commit_ts = txn.start_ts, txn.commit_ts
        envelope = 0
        touched: set[int] = set()
        out: list[FeedRow | SkippedRow] = []
        number = self._number
        for _ in range(txn.size):
            number += 1
            draw = rng.random()
            index = self._pick() if seqs and draw >= insert_p else -1
            if index < 0 or seqs[index] in touched:
                self._seq = seq = self._seq + 1
                seqs.append(seq)
                touched.add(seq)
                after = new_image(row_seed(salt, number), seq)
                if big is not None and seq % big.every == 0 and big.column in after:
                    col = self._columns[big.column]
                    after[big.column] = oversized_value(
                        col, big.nbytes, row_seed(self._big_salt, number)
                    )
                stored = stored_json(after)
                images.append(stored)
                row = RowChangedEvent(start_ts, commit_ts, info, None, after)
                size = _AFTER + len(stored)
            else:
                touched.add(seqs[index])
                kept = images[index]
                before = orjson.loads(kept)
                size = _BEFORE + len(kept)
                if draw < update_p and mutable:
                    after = before.copy()
                    update(row_seed(salt, number), after)
                    if key_share and rng.random() < key_share:
                        touched.add(self.rekey(after, index))
                    stored = images[index] = stored_json(after)
                    row = RowChangedEvent(start_ts, commit_ts, info, before, after)
                    size += _AFTER + len(stored)
                else:
                    self._remove(index)
                    row = RowChangedEvent(start_ts, commit_ts, info, before, None)
            if not envelope:  # the feed line of a row: this envelope with its op (6
                # letters each), and each image as a field
                envelope = 6 + len(
                    b'{"type":"row","commitTs":%d,"startTs":%d,"tableID":%d,"op":""}'
                    % (commit_ts, start_ts, info.table_id)
                )
            row.approximate_size = envelope + size
            if info.partition is None:
                out.append(FeedRow(row))
            else:  # a row moving to another partition is a DELETE and an INSERT
                out.extend(FeedRow(part) for part in split_moved(row, envelope))
        self._number = number
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

    def rekey(self, after: Image, index: int) -> int:
        """Give the row at ``index`` the keys of a new sequence number (a key-changing
        UPDATE): sequence numbers never repeat, so keys stay unique. Returns it."""
        self._seq = seq = self._seq + 1
        for name, key in self._keys:
            after[name] = key(seq)
        self._seqs[index] = seq
        return seq

    def insert(self) -> tuple[Image, bytes]:
        """A new row (the next sequence number), kept live; its image and JSON."""
        assert self._new_image is not None
        self._number = number = self._number + 1
        self._seq = seq = self._seq + 1
        after = self._new_image(row_seed(self._salt, number), seq)
        big = self.spec.oversized
        if big is not None and seq % big.every == 0 and big.column in after:
            state = row_seed(self._big_salt, number)
            after[big.column] = oversized_value(self._columns[big.column], big.nbytes, state)
        stored = stored_json(after)
        self._seqs.append(seq)
        self._images.append(stored)
        return after, stored

    def update(self, index: int) -> tuple[Image, Image]:
        """UPDATE the live row at ``index`` (its non-key columns, as the mix's updates do):
        (before, after); the caller stores ``after`` with ``store``."""
        assert self._update_draws is not None
        self._number = number = self._number + 1
        before = orjson.loads(self._images[index])
        after = before.copy()
        self._update_draws(row_seed(self._salt, number), after)
        return before, after

    def store(self, index: int, image: Image) -> bytes:
        stored = self._images[index] = stored_json(image)
        return stored

    def pick(self) -> int:
        """A live row's index, by the table's key distribution."""
        return self._pick()

    def live_rows(self) -> int:
        return len(self._seqs)

    def _remove(self, index: int) -> None:
        last = len(self._seqs) - 1
        self._seqs[index], self._images[index] = self._seqs[last], self._images[last]
        self._seqs.pop()
        self._images.pop()


def scenario_modifies(scenario: Scenario, table: int) -> list[ColumnInfo]:
    """The columns the scenario's MODIFY COLUMNs of table ``table`` make, in commit order."""
    ddls = sorted((d for d in scenario.ddls if d.table == table), key=lambda d: d.at)
    return [d.column.column for d in ddls if d.action == "modify_column" and d.column]


def stored_json(image: Image) -> bytes:
    """The JSON of ``image`` in a bytes object of its own size: orjson's result keeps the
    4 KiB buffer it was written into, which would make the table ten times its size."""
    return memoryview(orjson.dumps(image)).tobytes()


def _converted(col: ColumnInfo, value: Any) -> Any:
    """A number in the feed form of the DECIMAL or integer ``col``, rounded half away from
    zero as MySQL converts it; None for anything else."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    integer = col.mysql_type in INTEGER_RANGES
    if col.family is not TypeFamily.DECIMAL and not integer:
        return None
    try:
        number = Decimal(repr(value)) if isinstance(value, float) else Decimal(str(value))
        exponent = Decimal(1).scaleb(0 if integer else -col.decimal)
        rounded = number.quantize(exponent, rounding=ROUND_HALF_UP)
    except InvalidOperation:
        return None
    return int(rounded) if integer else str(rounded if rounded else rounded.copy_abs())


def _fits(col: ColumnInfo, check: Check, value: Any) -> bool:
    """Whether a value kept through MODIFY COLUMN is still valid."""
    if value is None:
        return col.nullable
    return check(value) is None
