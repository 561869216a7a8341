"""The player: commit order per table, DDL barriers, watermarks, resolved ts at boundaries,
and a clean stop on a bad line or a dead sink."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.feed.fakes import LateSink, RecordingDDLSink, SpyTableSink
from tisink.core.clock import FeedClock
from tisink.ddlsink.blackhole import BlackholeDDLSink
from tisink.eventsink.blackhole import BlackholeSink
from tisink.feed import FeedDDL, FeedError, FeedResolved, FeedRow, PlayError, play_inline, read_feed
from tisink.feed.format.records import FeedRecord
from tisink.feed.format.samples import DEMO_FEED
from tisink.feed.watermarks import interval_end_ts
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table
from tisink.model.tso import physical_ms
from tisink.tablesink import TableSink


def _table(table_id: int, version: int = 1) -> TableInfo:
    return make_table(
        "db",
        f"t{table_id}",
        table_id,
        version,
        [ColumnInfo("id", "int", nullable=False), ColumnInfo("v", "varchar", length=20)],
        [IndexInfo("primary", ("id",), unique=True, primary=True)],
    )


@st.composite
def feeds(draw: st.DrawFn) -> list[FeedRecord]:
    """1-3 tables; transactions of 1-4 rows on random tables; ALTERs and resolved records."""
    tables = {tid: _table(tid) for tid in range(1, draw(st.integers(1, 3)) + 1)}
    ts = 100
    records: list[FeedRecord] = []
    for table in tables.values():
        ts += 1
        records.append(FeedDDL(ts, ts, DDLEvent(ts, DDLType.CREATE, "c", table, start_ts=ts)))
    for _ in range(draw(st.integers(1, 40))):
        ts += draw(st.integers(1, 3))
        action = draw(st.integers(0, 9))
        if action == 0:
            tid = draw(st.sampled_from(sorted(tables)))
            old, tables[tid] = tables[tid], _table(tid, ts)
            ddl = DDLEvent(ts, DDLType.ALTER, "a", tables[tid], old, start_ts=ts)
            records.append(FeedDDL(ts, ts, ddl))
        elif action == 1:
            records.append(FeedResolved(ts))
        else:
            for n in range(draw(st.integers(1, 4))):
                table = tables[draw(st.sampled_from(sorted(tables)))]
                image = {"id": n, "v": str(ts)}
                records.append(FeedRow(RowChangedEvent(ts - 1, ts, table, None, image)))
    return records


async def _play(
    records: list[FeedRecord], events: LateSink, every_rows: int, calls: list
) -> RecordingDDLSink:
    ddl_sink = RecordingDDLSink(events)
    await play_inline(
        records,
        events,
        ddl_sink,
        lambda tid: SpyTableSink(tid, events, calls),
        resolve_every_rows=every_rows,
        watermark_interval_ms=1,
    )
    return ddl_sink


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    records=feeds(),
    wants_txn=st.booleans(),
    seed=st.integers(0, 1000),
    every_rows=st.integers(1, 8),
)
def test_play_keeps_order_barriers_and_watermarks(
    records: list[FeedRecord], wants_txn: bool, seed: int, every_rows: int
) -> None:
    events = LateSink(wants_txn=wants_txn, seed=seed)
    calls: list = []
    ddl_sink = asyncio.run(_play(records, events, every_rows, calls))
    rows = [r.row for r in records if isinstance(r, FeedRow)]

    # every row reached the event sink once, each table's rows in feed (commit) order
    assert sorted(map(id, events.written)) == sorted(map(id, rows))
    for tid in {r.table.table_id for r in rows}:
        assert [r for r in events.written if r.table.table_id == tid] == [
            r for r in rows if r.table.table_id == tid
        ]

    # the event sink gets every transaction in commit order, across tables too
    stamps = [r.commit_ts for r in events.written]
    assert stamps == sorted(stamps)

    # a DDL is written only after every earlier row of its table was acknowledged
    for ddl, acked in ddl_sink.ddls:
        tid = ddl.table.table_id
        earlier = [r for r in rows if r.table.table_id == tid and r.commit_ts < ddl.commit_ts]
        assert all(id(r) in acked for r in earlier), ddl.describe()
    assert [d.commit_ts for d, _ in ddl_sink.ddls] == [
        r.commit_ts for r in records if isinstance(r, FeedDDL)
    ]

    # a watermark W comes only after every row with commitTs <= W was acknowledged
    marks = [w for w, _, _ in ddl_sink.watermarks]
    assert marks == sorted(set(marks))
    for w, _, acked in ddl_sink.watermarks:
        assert all(id(r) in acked for r in rows if r.commit_ts <= w)
    last = max(_ts_of(r) for r in records)
    assert marks[-1] == last
    # every resolved record of the feed is a watermark at its own ts
    explicit = [r.ts for r in records if isinstance(r, FeedResolved)]
    assert all(ts in marks for ts in explicit)

    # a resolved ts R is issued to a table only once no later row of it has commitTs <= R
    resolved: dict[int, int] = {}
    for kind, tid, payload in calls:
        if kind == "resolve":
            resolved[tid] = payload
        elif kind == "append":
            assert all(r.commit_ts > resolved.get(tid, 0) for r in payload)


def _ts_of(record: FeedRecord) -> int:
    if isinstance(record, FeedResolved):
        return record.ts
    return record.commit_ts if isinstance(record, FeedDDL) else record.row.commit_ts


def _demo_lines() -> list[dict]:
    return [json.loads(line) for line in DEMO_FEED.read_text().splitlines() if line.strip()]


async def test_sample_feed_counts_are_exact() -> None:
    lines = _demo_lines()
    kinds = Counter(obj["type"] for obj in lines)
    primary = {}
    splits = 0
    for obj in lines:
        if obj["type"] == "ddl" and "table" in obj:
            t = obj["table"]
            primary[t["tableID"]] = next(i["columns"] for i in t["indexes"] if i["primary"])
        elif obj["type"] == "row" and obj["op"] == "UPDATE":
            keys = primary[obj["tableID"]]
            splits += any(obj["before"][k] != obj["after"][k] for k in keys)
    events, ddl_sink = BlackholeSink(), BlackholeDDLSink()
    made: list[TableSink] = []

    def make(tid: int) -> TableSink:
        made.append(TableSink(tid, events))
        return made[-1]

    stats = await play_inline(read_feed(DEMO_FEED), events, ddl_sink, make)
    assert (stats.rows, stats.ddl, stats.resolved) == (
        kinds["row"],
        kinds["ddl"],
        kinds["resolved"],
    )
    raw = DEMO_FEED.read_bytes().splitlines()
    assert stats.bytes == sum(len(line) for line in raw if line.startswith(b'{"type":"row"'))
    assert events.rows == kinds["row"] + splits and splits > 0
    assert ddl_sink.ddl_count == kinds["ddl"]
    final = max(obj.get("commitTs", obj.get("ts", 0)) for obj in lines)
    assert ddl_sink.checkpoint_ts == stats.checkpoint_ts == final
    assert stats.tables == len({o["tableID"] for o in lines if o["type"] == "row"})
    assert sorted(s.table_id for s in made) == [101, 102, 103, 104, 105]
    assert all(s.state.value == "stopped" for s in made)
    assert stats.elapsed_s > 0


async def test_truncate_and_erase_close_the_old_table_sink() -> None:
    events = LateSink(wants_txn=True, seed=3)
    calls: list = []
    ddl_sink = await _play(list(read_feed(DEMO_FEED)), events, 64, calls)
    closes = [i for i, c in enumerate(calls) if c[0] == "close"]
    by_table = {calls[i][1]: i for i in closes}
    first_105 = next(i for i, c in enumerate(calls) if c[1] == 105)
    assert by_table[104] < first_105  # TRUNCATE closed 104 before 105 got anything
    final_tables = {t.table_id for t in ddl_sink.watermarks[-1][1]}
    assert final_tables == {101, 102, 103}  # 105 was erased; 103 is now shop.catalog
    names = {t.table_id: t.table for t in ddl_sink.watermarks[-1][1]}
    assert names[103] == "catalog"


def _with_bad_line(tmp_path: Path, at: int) -> Path:
    lines = DEMO_FEED.read_text().splitlines(keepends=True)
    bad = json.loads(lines[at - 1])
    assert bad["type"] == "row"
    bad.setdefault("after", bad.get("before"))["nope"] = 1
    lines[at - 1] = json.dumps(bad) + "\n"
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(lines))
    return path


async def test_bad_line_stops_the_play_cleanly(tmp_path: Path) -> None:
    at = 200
    path = _with_bad_line(tmp_path, at)
    line_of: dict[int, int] = {}

    def tracked() -> Iterator[FeedRecord]:
        for record in read_feed(path):
            if isinstance(record, FeedRow):
                line_of[id(record.row)] = record.source.line
            yield record

    events = LateSink(wants_txn=True, seed=7)
    calls: list = []
    made: list[SpyTableSink] = []

    def make(tid: int) -> SpyTableSink:
        made.append(SpyTableSink(tid, events, calls))
        return made[-1]

    with pytest.raises(PlayError) as caught:
        await play_inline(tracked(), events, RecordingDDLSink(events), make, resolve_every_rows=16)
    err = caught.value
    assert isinstance(err.cause, FeedError) and err.cause.line == at and "nope" in str(err)
    appended = [row for kind, _, rows in calls if kind == "append" for row in rows]
    assert appended and max(line_of[id(r)] for r in appended) < at
    # the checkpoint reported is real: every row at or below it was acknowledged
    assert err.last_checkpoint_ts > 0
    assert all(id(r) in events.acked for r in appended if r.commit_ts <= err.last_checkpoint_ts)
    assert all(s.inner.state.value == "stopped" for s in made)
    assert err.stats.rows == sum(1 for line in line_of.values() if line < at)


async def test_dead_event_sink_stops_the_play() -> None:
    events = LateSink(wants_txn=False, seed=1)
    events.fail_after = 50
    made: list[TableSink] = []

    def make(tid: int) -> TableSink:
        made.append(TableSink(tid, events))
        return made[-1]

    with pytest.raises(PlayError) as caught:
        await play_inline(
            read_feed(DEMO_FEED), events, BlackholeDDLSink(), make, resolve_every_rows=8
        )
    assert "broker gone" in str(caught.value)
    assert len(events.written) == 50
    assert all(s.state.value == "stopped" for s in made)


async def test_feed_clock_follows_commit_ts_and_back_pressure_is_awaited() -> None:
    clock = FeedClock()
    events = LateSink(wants_txn=True)
    records = list(read_feed(DEMO_FEED))
    progress: list[int] = []
    stats = await play_inline(
        records,
        events,
        RecordingDDLSink(events),
        lambda tid: TableSink(tid, events),
        clock=clock,
        on_progress=lambda s: progress.append(s.checkpoint_ts),
    )
    last_commit = max(r.row.commit_ts for r in records if isinstance(r, FeedRow))
    # the clock moves at watermark points only: to the end of the last point's interval
    assert clock.now_ms() == physical_ms(interval_end_ts(last_commit, 1000))
    assert events.capacity_waits > 0
    assert progress and progress == sorted(progress) and progress[-1] == stats.checkpoint_ts


async def test_records_out_of_order_are_refused() -> None:
    table = _table(1)
    records = [
        FeedDDL(1, 1, DDLEvent(1, DDLType.CREATE, "c", table, start_ts=1)),
        FeedRow(RowChangedEvent(4, 5, table, None, {"id": 1, "v": "a"})),
        FeedRow(RowChangedEvent(3, 4, table, None, {"id": 2, "v": "b"})),
    ]
    events = BlackholeSink()
    with pytest.raises(PlayError, match="commitTs 4 goes back"):
        await play_inline(records, events, BlackholeDDLSink(), lambda t: TableSink(t, events))
