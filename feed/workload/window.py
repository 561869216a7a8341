"""Which row each change of a table touches, planned for all of its transactions at once.

A table whose rows may be stepped over (``selection.selectable``) keeps its live rows as one
window of sequence numbers, ``(deleted, born]``: an INSERT gives the next number, a DELETE
takes the oldest live row, and an UPDATE takes live rows from a block that starts where the
table's key law says (``uniform``, or ``zipf`` with the newest rows hottest). Within a
transaction the DELETEs take the oldest rows, the UPDATEs a block of the rows that stay, and
the INSERTs new ones, so no row is touched twice. Each change's kind is a draw of its own
(the row number's hash, as ``draws.row_seed``), so with the transactions' sizes known the
whole table is planned with array operations: the keys live at any point are the window, and
a row's key is known without replaying the rows before it. Only where the window runs short
(more DELETEs and UPDATEs than live rows: at the start, or in a table that shrinks) is a
transaction worked out alone; its extra changes become INSERTs.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from tisink.feed.workload.draws import MASK64, UNIT

INSERT, UPDATE, DELETE = 0, 1, 2
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_STEP = 1 << 12
"""Transactions planned per array pass (fewer after a transaction the window ran short in)."""


def units(salt: int, numbers: np.ndarray) -> np.ndarray:
    """``row_seed(salt, n)`` of each number as a float in [0, 1) (its top 53 bits)."""
    z = np.uint64(salt & MASK64) + numbers.astype(np.uint64) * _GOLDEN
    z ^= z >> np.uint64(30)
    z *= _MIX1
    z ^= z >> np.uint64(27)
    z *= _MIX2
    z ^= z >> np.uint64(31)
    return (z >> np.uint64(11)).astype(np.float64) * UNIT


@dataclass(frozen=True)
class TableTxns:
    """One table's transactions in schedule order."""

    sizes: np.ndarray
    """Rows of each transaction (int64)."""
    preload: np.ndarray
    """Whether each is a preload transaction (bool)."""
    resets: tuple[int, ...]
    """The indices (into these transactions) a TRUNCATE comes before: no row lives on."""


@dataclass(frozen=True)
class WindowPlan:
    """Every row change of one table: its kind and the sequence number of its row."""

    starts: np.ndarray
    """The first row of each transaction, and the row count at the end (int64)."""
    kinds: np.ndarray
    """INSERT, UPDATE or DELETE per row (int8)."""
    keys: np.ndarray
    """The sequence number each row inserts, updates or deletes (int64)."""
    born: int
    """Sequence numbers given out in all: the rows are 1 .. born."""


def plan_window(
    txns: TableTxns,
    mix: tuple[float, float, float],
    mutable: bool,
    law: str,
    zipf_s: float,
    salt: int,
) -> WindowPlan:
    """The plan of a table's changes: ``mix`` weighs INSERT/UPDATE/DELETE (a table with
    nothing to update deletes instead), ``law`` and ``zipf_s`` pick the UPDATEs' rows, and
    ``salt`` seeds the draws (each row's kind, each transaction's block start)."""
    sizes = txns.sizes.astype(np.int64)
    count = len(sizes)
    starts = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(sizes, out=starts[1:])
    rows = int(starts[-1])
    drawn = units(salt, np.arange(rows, dtype=np.uint64))
    insert_p, update_p, _ = mix
    if not mutable:
        update_p = 0.0
    kinds = np.where(
        drawn < insert_p, INSERT, np.where(drawn < insert_p + update_p, UPDATE, DELETE)
    )
    kinds = kinds.astype(np.int8)
    txn_of = np.repeat(np.arange(count), sizes)
    kinds[txns.preload[txn_of]] = INSERT
    counted = [np.bincount(txn_of[kinds == k], minlength=count) for k in (INSERT, UPDATE, DELETE)]
    inserts, updates, deletes = (c.astype(np.int64) for c in counted)
    live, deletes_kept, updates_kept = _live_at_starts(
        sizes, inserts, updates, deletes, txns.resets
    )
    short = np.flatnonzero((deletes_kept < deletes) | (updates_kept < updates))
    for txn in short.tolist():  # the changes the window could not take become INSERTs
        _to_inserts(kinds, int(starts[txn]), int(starts[txn + 1]), deletes, updates,
                    deletes_kept, updates_kept, txn)  # fmt: skip
    inserts_kept = sizes - deletes_kept - updates_kept
    born_before = np.zeros(count, dtype=np.int64)
    if count:
        np.cumsum(inserts_kept[:-1], out=born_before[1:])
    deleted_before = born_before - live
    keys = np.zeros(rows, dtype=np.int64)
    first = starts[:-1]
    for kind, base in ((INSERT, born_before), (DELETE, deleted_before)):
        mask = kinds == kind
        keys[mask] = (base[txn_of] + _ranks(mask, first, txn_of) + 1)[mask]
    mask = kinds == UPDATE
    if mask.any():
        span = np.maximum(live - deletes_kept, 1)  # the rows that stay (> 0 with updates)
        picked = units(salt ^ 0x5EED, first.astype(np.uint64))
        rank = _ranks(mask, first, txn_of)
        if law == "uniform":
            offset = np.floor(picked * span).astype(np.int64)
            low = deleted_before + deletes_kept + 1
            keys[mask] = (low[txn_of] + (offset[txn_of] + rank) % span[txn_of])[mask]
        else:
            offset = _zipf_ranks(picked, span, zipf_s) - 1
            keys[mask] = (born_before[txn_of] - (offset[txn_of] + rank) % span[txn_of])[mask]
    born = int(born_before[-1] + inserts_kept[-1]) if count else 0
    return WindowPlan(starts, kinds, keys, born)


def _live_at_starts(
    sizes: np.ndarray,
    inserts: np.ndarray,
    updates: np.ndarray,
    deletes: np.ndarray,
    resets: tuple[int, ...],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The live rows at each transaction's start, and the DELETEs and UPDATEs each keeps:
    all of them while the window holds them (array passes), else as many as it holds."""
    count = len(sizes)
    live = np.zeros(count, dtype=np.int64)
    deletes_kept, updates_kept = deletes.copy(), updates.copy()
    bounds = sorted({0, *resets, count})
    for start, end in itertools.pairwise(bounds):
        txn, now, step = start, 0, _STEP
        while txn < end:
            stop = min(end, txn + step)
            change = inserts[txn:stop] - deletes[txn:stop]
            at = now + np.concatenate(([0], np.cumsum(change)[:-1]))
            short = np.flatnonzero(deletes[txn:stop] + updates[txn:stop] > at)
            good = stop - txn if short.size == 0 else int(short[0])
            live[txn : txn + good] = at[:good]
            if good:
                now = int(at[good - 1] + change[good - 1])
            txn += good
            step = min(step * 2, _STEP) if short.size == 0 else 16
            if short.size:
                live[txn] = now
                kept = min(int(deletes[txn]), now)
                updated = min(int(updates[txn]), now - kept)
                deletes_kept[txn], updates_kept[txn] = kept, updated
                now += int(sizes[txn]) - updated - 2 * kept
                txn += 1
    return live, deletes_kept, updates_kept


def _to_inserts(
    kinds: np.ndarray,
    first: int,
    end: int,
    deletes: np.ndarray,
    updates: np.ndarray,
    deletes_kept: np.ndarray,
    updates_kept: np.ndarray,
    txn: int,
) -> None:
    """Turn a short transaction's last extra DELETEs and UPDATEs into INSERTs."""
    extra = {
        DELETE: int(deletes[txn] - deletes_kept[txn]),
        UPDATE: int(updates[txn] - updates_kept[txn]),
    }
    for row in range(end - 1, first - 1, -1):
        kind = int(kinds[row])
        if extra.get(kind, 0) > 0:
            extra[kind] -= 1
            kinds[row] = INSERT


def _ranks(mask: np.ndarray, first: np.ndarray, txn_of: np.ndarray) -> np.ndarray:
    """Each row's place among its transaction's rows of ``mask`` (0-based; any value where
    ``mask`` is false)."""
    counts = np.cumsum(mask, dtype=np.int64)
    before = (counts - mask)[first] if len(first) else np.zeros(0, dtype=np.int64)
    return counts - 1 - before[txn_of]


def _zipf_ranks(picked: np.ndarray, span: np.ndarray, s: float) -> np.ndarray:
    """Ranks 1 .. span by the inverse CDF of the continuous 1/x^s law on [1, span + 1)."""
    if abs(s - 1.0) < 1e-9:
        rank = np.exp(picked * np.log(span + 1.0))
    else:
        rank = ((np.power(span + 1.0, 1 - s) - 1) * picked + 1) ** (1 / (1 - s))
    return np.minimum(rank.astype(np.int64), span).clip(min=1)
