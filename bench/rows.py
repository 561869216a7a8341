"""The rows the encoding benchmarks take, grouped into transactions as a table sink hands them.

``ten_column_rows``: a typical OLTP row (ids, names, amounts, a timestamp, a status enum), in
transactions of ten with real TSOs (the DTS formats derive binlog positions from them). Demo
rows: the built-in ``demo`` workload (every MySQL type over five tables, zipf keys, large rows),
its transactions as generated.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from tisink.feed.format.records import FeedRow
from tisink.feed.workload import generate_records
from tisink.model import ColumnInfo, IndexInfo, RowChangedEvent, make_table
from tisink.model.tso import compose_ts

TEXT: dict[str, Any] = {"charset": "utf8mb4", "collate": "utf8mb4_bin"}
BASE_MS = 1_715_930_562_000
"""Commit time of the first 10-column transaction (May 2024)."""
TXN_ROWS = 10

Txn = list[RowChangedEvent]


def ten_column_rows(count: int) -> list[RowChangedEvent]:
    """``count`` INSERTs of a 10-column ``shop.orders`` row, seeded (same rows every run)."""
    table = make_table(
        "shop",
        "orders",
        101,
        7,
        [
            ColumnInfo("id", "bigint", length=20, nullable=False),
            ColumnInfo("customer_id", "int", length=11),
            ColumnInfo("name", "varchar", length=64, **TEXT),
            ColumnInfo("email", "varchar", length=128, **TEXT),
            ColumnInfo("amount", "decimal", length=12, decimal=2),
            ColumnInfo("quantity", "smallint", length=6),
            ColumnInfo("price", "double"),
            ColumnInfo("status", "enum", elements=("new", "paid", "shipped"), **TEXT),
            ColumnInfo("created_at", "timestamp"),
            ColumnInfo("note", "text", **TEXT),
        ],
        [IndexInfo("primary", ("id",), unique=True, primary=True)],
    )
    rng = random.Random(7)
    rows = []
    for i in range(count):
        image = {
            "id": 10_000_000 + i,
            "customer_id": rng.randrange(1, 1 << 30),
            "name": f"customer {rng.randrange(10**6)}",
            "email": f"user{rng.randrange(10**6)}@example.com",
            "amount": f"{rng.randrange(10**6)}.{rng.randrange(100):02d}",
            "quantity": rng.randrange(1, 100),
            "price": rng.randrange(1, 10**6) / 100,
            "status": rng.choice(("new", "paid", "shipped")),
            "created_at": f"2024-05-{rng.randrange(1, 29):02d} 12:{rng.randrange(60):02d}:07",
            "note": "deliver to the back door" if i % 3 else None,
        }
        rows.append(RowChangedEvent(i, i + 1, table, after=image))
    return rows


def ten_column_txns(count: int) -> list[Txn]:
    """``ten_column_rows`` in transactions of ``TXN_ROWS``, each at its own commit ts."""
    rows = ten_column_rows(count)
    txns = []
    for start in range(0, len(rows), TXN_ROWS):
        ts = compose_ts(BASE_MS + start)
        txns.append(
            [r.replace(start_ts=ts - 1, commit_ts=ts) for r in rows[start : start + TXN_ROWS]]
        )
    return txns


def transactions(rows: Sequence[RowChangedEvent]) -> list[Txn]:
    """Consecutive rows of one table and commit ts: the transactions a table sink hands over."""
    txns: list[Txn] = []
    for row in rows:
        last = txns[-1][-1] if txns else None
        if last is not None and last.commit_ts == row.commit_ts and last.table is row.table:
            txns[-1].append(row)
        else:
            txns.append([row])
    return txns


def demo_txns(count: int, seed: int = 1) -> list[Txn]:
    """The first ``count`` rows of the seeded ``demo`` workload, in its transactions."""
    rows = [r.row for r in generate_records("demo", seed, count) if type(r) is FeedRow]
    return transactions(rows)
