"""Transactions of a table that the plain insert/update/delete mix does not make.

- A preload (``preload = N``): inserts only, right after the table's CREATE.
- Transfers, for a table with a ``conserved`` column (the bank's balances): rows change in
  pairs, one giving an amount to the other, so the column's sum over the table is the same
  after every transaction. An odd row out is updated without touching the column. An amount
  never takes a row below zero nor past the column's largest value.
"""

from __future__ import annotations

import random
from decimal import Decimal
from typing import Any, Protocol

import orjson

from tisink.feed.format.records import FeedRow, split_moved
from tisink.feed.workload.draws import below
from tisink.feed.workload.specs import TableSpec
from tisink.feed.workload.steps import PlannedTxn
from tisink.model.events import RowChangedEvent
from tisink.model.mysqltypes import INTEGER_RANGES, TypeFamily
from tisink.model.table import ColumnInfo, TableInfo

MAX_AMOUNT_WHOLE = 1000
"""A transfer moves at most this much (in the column's whole units)."""
_AFTER = len(b',"after":')
_BEFORE = len(b',"before":')


class ShapedTable(Protocol):
    """What a shaped commit asks of its table (``table_state.TableState``, which calls it)."""

    spec: TableSpec
    rng: random.Random

    def insert(self) -> tuple[dict[str, Any], bytes]: ...

    def update(self, index: int) -> tuple[dict[str, Any], dict[str, Any]]: ...

    def store(self, index: int, image: dict[str, Any]) -> bytes: ...

    def pick(self) -> int: ...

    def live_rows(self) -> int: ...


def shaped_commit(state: ShapedTable, txn: PlannedTxn, info: TableInfo) -> list[FeedRow]:
    envelope = 6 + len(
        b'{"type":"row","commitTs":%d,"startTs":%d,"tableID":%d,"op":""}'
        % (txn.commit_ts, txn.start_ts, info.table_id)
    )
    if txn.preload:
        return [_insert(state, txn, info, envelope) for _ in range(txn.size)]
    assert state.spec.conserved is not None
    col = info.column_by_name[state.spec.conserved]
    picks = _distinct_rows(state, txn.size)
    out = []
    for first in range(0, len(picks) - 1, 2):
        giver, taker = picks[first], picks[first + 1]
        (gb, ga), (tb, ta) = state.update(giver), state.update(taker)
        amount = _amount(state, col, _units(col, gb[col.name]), _units(col, tb[col.name]))
        ga[col.name] = _value(col, _units(col, gb[col.name]) - amount)
        ta[col.name] = _value(col, _units(col, tb[col.name]) + amount)
        out.extend(_update(state, txn, info, envelope, giver, gb, ga))
        out.extend(_update(state, txn, info, envelope, taker, tb, ta))
    if len(picks) % 2:
        before, after = state.update(picks[-1])
        after[col.name] = before[col.name]
        out.extend(_update(state, txn, info, envelope, picks[-1], before, after))
    return out


def _distinct_rows(state: ShapedTable, size: int) -> list[int]:
    """``size`` different live rows (fewer if the table has fewer), by the key law; a row
    already picked gives way to the next one along."""
    count = state.live_rows()
    picked: list[int] = []
    for _ in range(min(size, count)):
        index = state.pick()
        while index in picked:
            index = (index + 1) % count
        picked.append(index)
    return picked


def _units(col: ColumnInfo, value: Any) -> int:
    """The value in the column's smallest units (cents of a decimal(12,2))."""
    if col.family is TypeFamily.DECIMAL:
        return int(Decimal(value).scaleb(col.decimal))
    return int(value)


def _value(col: ColumnInfo, units: int) -> Any:
    if col.family is TypeFamily.DECIMAL:
        return str(Decimal(units).scaleb(-col.decimal))
    return units


def _largest(col: ColumnInfo) -> int:
    if col.family is TypeFamily.DECIMAL:
        return 10**col.length - 1
    _, high, unsigned_max = INTEGER_RANGES[col.mysql_type]
    return unsigned_max if col.unsigned else high


def _amount(state: ShapedTable, col: ColumnInfo, giver: int, taker: int) -> int:
    cap = min(giver, _largest(col) - taker, MAX_AMOUNT_WHOLE * 10**col.decimal)
    return below(state.rng, cap + 1) if cap > 0 else 0


def _insert(state: ShapedTable, txn: PlannedTxn, info: TableInfo, envelope: int) -> FeedRow:
    after, stored = state.insert()
    row = RowChangedEvent(txn.start_ts, txn.commit_ts, info, None, after)
    row.approximate_size = envelope + _AFTER + len(stored)
    return FeedRow(row)


def _update(
    state: ShapedTable,
    txn: PlannedTxn,
    info: TableInfo,
    envelope: int,
    index: int,
    before: dict[str, Any],
    after: dict[str, Any],
) -> list[FeedRow]:
    stored = state.store(index, after)
    row = RowChangedEvent(txn.start_ts, txn.commit_ts, info, before, after)
    row.approximate_size = envelope + _BEFORE + len(orjson.dumps(before)) + _AFTER + len(stored)
    return [FeedRow(part) for part in split_moved(row, envelope)]
