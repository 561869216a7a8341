"""Invariants of BatchingSink over random workloads: per-table order and exactly-once delivery
despite retries and concurrent workers; a table's checkpoint never passes an unwritten row."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.eventsink.base import CallbackableEvent, StateRef
from tisink.eventsink.batching import Batch, BatchingSink, RetryPolicy
from tisink.eventsink.errors import RetriableError
from tisink.model.events import ResolvedTs, RowChangedEvent, SingleTableTxn
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table
from tisink.tablesink import TableSink

FAST = RetryPolicy(initial_backoff_s=0.0, max_backoff_s=0.0, jitter=0.0)
TABLES = [
    make_table("p", f"t{i}", i, 1, [ColumnInfo("id", "int", nullable=False)],
               [IndexInfo("primary", ("id",), unique=True, primary=True)])
    for i in range(1, 4)
]  # fmt: skip

txn_plans = st.lists(
    st.tuples(st.integers(0, len(TABLES) - 1), st.integers(1, 6)), min_size=1, max_size=40
)


class Flaky(BatchingSink):
    """Yields ``delays`` times per write and fails the first attempt of every batch whose
    number is in ``failing``; records what it wrote."""

    scheme = "flaky"

    def __init__(self, delays: list[int], failing: set[int], **kwargs) -> None:
        super().__init__(retry=FAST, **kwargs)
        self.delays = delays
        self.failing = failing
        self.calls = 0
        self.batches: list[Batch] = []
        self.written: set[tuple[int, int]] = set()

    async def write_batch(self, batch: Batch) -> None:
        self.calls += 1
        for _ in range(self.delays[self.calls % len(self.delays)]):
            await asyncio.sleep(0)
        if batch.attempt == 1 and len(self.batches) in self.failing:
            raise RetriableError("transient")
        self.batches.append(batch)
        self.written.update((r.table.table_id, r.after["id"]) for r in batch.rows)


@settings(max_examples=60, deadline=None)
@given(
    plan=txn_plans,
    max_rows=st.integers(1, 8),
    concurrency=st.integers(1, 3),
    delays=st.lists(st.integers(0, 3), min_size=1, max_size=5),
    failing=st.sets(st.integers(0, 30), max_size=6),
)
def test_rows_arrive_once_in_order_per_table_and_callbacks_follow_writes(
    plan: list[tuple[int, int]],
    max_rows: int,
    concurrency: int,
    delays: list[int],
    failing: set[int],
) -> None:
    async def run() -> tuple[Flaky, dict[int, list[int]], list[int]]:
        sink = Flaky(delays, failing, max_batch_rows=max_rows, concurrency=concurrency)
        expected: dict[int, list[int]] = {t.table_id: [] for t in TABLES}
        fired = [0] * len(plan)
        events = []
        for index, (table_no, size) in enumerate(plan):
            info = TABLES[table_no]
            ids = [index * 10 + k for k in range(size)]
            expected[info.table_id].extend(ids)
            rows = [RowChangedEvent(1, 2 + index, info, after={"id": i}) for i in ids]

            def callback(index: int = index, info: TableInfo = info, ids: list[int] = ids):
                # a callback only after its rows are written
                assert all((info.table_id, i) in sink.written for i in ids)
                fired[index] += 1

            txn = SingleTableTxn(1, 2 + index, info, rows)
            events.append(CallbackableEvent(txn, callback, StateRef()))
        for start in range(0, len(events), 7):  # several write_events calls
            sink.write_events(events[start : start + 7])
            await asyncio.sleep(0)
        await sink.close()
        return sink, expected, fired

    sink, expected, fired = asyncio.run(run())
    assert sink.error is None
    assert fired == [1] * len(plan)
    for info in TABLES:
        got = [r.after["id"] for b in sink.batches if b.table is info for r in b.rows]
        assert got == expected[info.table_id]
    for batch in sink.batches:
        assert {r.table.table_id for r in batch.rows} == {batch.table.table_id}
        assert batch.row_count <= max_rows or len(batch.txns) == 1
        assert [t.commit_ts for t in batch.txns] == sorted(t.commit_ts for t in batch.txns)


@settings(max_examples=40, deadline=None)
@given(
    plan=txn_plans,
    resolve_every=st.integers(1, 6),
    max_rows=st.integers(1, 8),
    delays=st.lists(st.integers(0, 4), min_size=1, max_size=5),
    failing=st.sets(st.integers(0, 30), max_size=6),
)
def test_checkpoint_never_passes_an_unwritten_row(
    plan: list[tuple[int, int]],
    resolve_every: int,
    max_rows: int,
    delays: list[int],
    failing: set[int],
) -> None:
    async def run() -> None:
        sink = Flaky(delays, failing, max_batch_rows=max_rows, max_pending_rows=16)
        table_sinks = {t.table_id: TableSink(t.table_id, sink) for t in TABLES}
        rows_of: dict[int, list[RowChangedEvent]] = {t.table_id: [] for t in TABLES}
        violations: list[str] = []
        done = False

        def check() -> None:
            for table_id, table_sink in table_sinks.items():
                mark = table_sink.get_checkpoint_ts().resolved_mark
                for row in rows_of[table_id]:
                    if row.commit_ts <= mark and (table_id, row.after["id"]) not in sink.written:
                        violations.append(f"table {table_id}: checkpoint {mark} passed {row!r}")

        async def watch() -> None:
            while not done:
                check()
                await asyncio.sleep(0)

        watcher = asyncio.ensure_future(watch())
        last_ts = 0
        for index, (table_no, size) in enumerate(plan):
            info = TABLES[table_no]
            last_ts = 100 + index
            rows = [
                RowChangedEvent(last_ts - 1, last_ts, info, after={"id": index * 10 + k})
                for k in range(size)
            ]
            rows_of[info.table_id].extend(rows)
            table_sinks[info.table_id].append_row_changed_events(rows)
            if index % resolve_every == resolve_every - 1:
                for table_sink in table_sinks.values():
                    table_sink.update_resolved_ts(ResolvedTs.normal(last_ts))
                await sink.wait_for_capacity()
        for table_sink in table_sinks.values():
            table_sink.update_resolved_ts(ResolvedTs.normal(last_ts))
        await sink.flush()
        done = True
        await watcher
        check()
        assert violations == []
        assert all(ts.get_checkpoint_ts().resolved_mark == last_ts for ts in table_sinks.values())
        await sink.close()

    asyncio.run(run())
