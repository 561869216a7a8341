"""Property: whatever order the tables' transactions interleave in, and whatever an
at-least-once delivery replays (a table's stream restarted from an earlier transaction, as after a
TiCDC restart, or the BAB pattern), the database ends in the state of the upstream history.

Hypothesis builds a valid upstream history over three keyed tables (inserts of absent keys,
updates that may move a row to a new key, deletes), delivers each table's transactions with
replays of earlier runs, and merges the tables' streams in a random interleaving that keeps each
table's order (TiCDC orders per table only). The expected state is the history's own model."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.eventsink.sql.support import (
    DIALECTS,
    Database,
    fresh_database,
    opened,
    reset,
    write_txns,
)
from tisink.model.events import RowChangedEvent, SingleTableTxn
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table

TABLES = [
    make_table("p", f"t{i}", 10 + i, 1,
               [ColumnInfo("id", "int", nullable=False), ColumnInfo("v", "varchar", length=16)],
               [IndexInfo("primary", ("id",), unique=True, primary=True)])
    for i in range(3)
]  # fmt: skip
KEYS = st.integers(0, 12)
Op = tuple[int, int, int, int]
"""(table index, key, new key for a move, value)."""


@st.composite
def deliveries(draw: Any) -> tuple[list[SingleTableTxn], dict[str, dict[int, str]]]:
    """The delivered transactions in one interleaving, and the expected rows per table."""
    state: list[dict[int, str]] = [{} for _ in TABLES]
    streams: list[list[SingleTableTxn]] = [[] for _ in TABLES]
    ts = 1 << 40
    op = st.tuples(st.integers(0, 2), KEYS, KEYS, st.integers(0, 99))
    for ops in draw(st.lists(st.lists(op, min_size=1, max_size=4), min_size=1, max_size=25)):
        ts += 1 << 18
        index = ops[0][0]
        table, model = TABLES[index], state[index]
        rows: list[RowChangedEvent] = []
        for _, key, moved, value in ops:
            text = f"v{value}"
            before = {"id": key, "v": model.pop(key)} if key in model else None
            if before is not None and value % 3 == 0:
                rows.append(RowChangedEvent(ts - 1, ts, table, before=before))
                continue
            target = key if before is None or moved in model else moved
            rows.append(RowChangedEvent(ts - 1, ts, table, before, {"id": target, "v": text}))
            model[target] = text
        streams[index].append(SingleTableTxn(ts - 1, ts, table, rows))
    delivered: list[list[SingleTableTxn]] = []
    for stream in streams:
        out: list[SingleTableTxn] = []
        for position, one in enumerate(stream):
            out.append(one)
            if draw(st.integers(0, 4)) == 0:  # a restart: replay from an earlier transaction
                out.extend(stream[draw(st.integers(0, position)) : position + 1])
        delivered.append(out)
    merged: list[SingleTableTxn] = []
    cursors = [0] * len(delivered)
    while any(c < len(s) for c, s in zip(cursors, delivered, strict=True)):
        live = [i for i, s in enumerate(delivered) if cursors[i] < len(s)]
        pick = live[draw(st.integers(0, len(live) - 1))]
        merged.append(delivered[pick][cursors[pick]])
        cursors[pick] += 1
    return merged, {t.qualified_name: dict(m) for t, m in zip(TABLES, state, strict=True)}


def database_state(db: Database, tables: list[TableInfo]) -> dict[str, dict[int, str]]:
    present = db.tables()
    return {
        t.qualified_name: dict(db.query(f"SELECT id, v FROM {db.ref(t.schema, t.table)}"))
        if t.qualified_name in present
        else {}
        for t in tables
    }


async def apply(db: Database, txns: list[SingleTableTxn], batch_rows: int) -> None:
    sink = await opened(db, f"batch-rows={batch_rows}")  # small: replays cross batch borders
    await write_txns(sink, txns)
    await sink.close()


@pytest.mark.parametrize("kind", DIALECTS)
def test_any_interleaving_with_replays_ends_in_the_upstream_state(request, kind, tmp_path: Path):
    db = fresh_database(request, kind, tmp_path)

    @settings(max_examples=40 if kind == "sqlite" else 15, deadline=None,
              suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
    @given(deliveries(), st.sampled_from([1, 3, 4096]))
    def check(delivery: tuple[list[SingleTableTxn], dict[str, dict[int, str]]], batch_rows: int):
        txns, expected = delivery
        reset(db)
        asyncio.run(apply(db, txns, batch_rows))
        assert database_state(db, TABLES) == expected

    check()
