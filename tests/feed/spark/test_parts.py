"""Pure parts of the Spark engine, without Spark: watermark points, places and lines, the
cross-chunk checks, an owner's events, the owned-partition producer view and the partition
player's ordering."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from tests.feed.fakes import LateSink, RecordingDDLSink
from tisink.codec.message import Record
from tisink.core.clock import FeedClock
from tisink.feed.format.records import FeedDDL, FeedResolved, FeedRow
from tisink.feed.play_records import RowsStart, WatermarkPoint
from tisink.feed.spark.partition_player import partition_player
from tisink.feed.spark.plan import START_SUB, PlayPlan, record_seq
from tisink.feed.spark.reports import ChunkReport, InputProblem, first_problem
from tisink.feed.spark.sources import pack_groups
from tisink.feed.spark.survey import FeedSurvey, place_of
from tisink.feed.watermarks import (
    interval_end_ts,
    point_before,
    points_of_intervals,
    with_watermark_points,
)
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table
from tisink.model.tso import compose_ts, physical_ms
from tisink.sink.partition_owner import owned_partition
from tisink.tablesink import TableSink


def _table(table_id: int = 1, name: str = "t") -> TableInfo:
    return make_table(
        "s",
        name,
        table_id,
        1,
        [ColumnInfo("id", "int", nullable=False)],
        [IndexInfo("primary", ("id",), unique=True, primary=True)],
    )


def test_watermark_points_are_one_per_interval_holding_records() -> None:
    # intervals 10, 11, 12 and, after an idle stretch, 3600: one point before each but the
    # first, and a single point for the whole idle hour
    assert points_of_intervals([12, 10, 11, 10, 3600], 1000) == [
        point_before(11_000),
        point_before(12_000),
        point_before(3_600_000),
    ]
    assert physical_ms(point_before(11_000)) == 10_999
    assert points_of_intervals([10], 1000) == []
    # the clock between the points reads the end of the interval that follows
    first = compose_ts(10_400, 3)
    assert interval_end_ts(point_before(11_000), 1000) == compose_ts(12_000)
    assert interval_end_ts(first - 1, 1000) == compose_ts(11_000)


def test_inline_records_get_the_same_points_as_the_plan() -> None:
    table = _table()
    stamps = [compose_ts(ms) for ms in (500, 900, 1200, 3500, 3_600_200)]
    rows = [FeedRow(RowChangedEvent(1, ts, table, None, {"id": ts})) for ts in stamps]
    out = list(with_watermark_points(rows, 1000))
    kinds = [(type(r).__name__, getattr(r, "ts", 0)) for r in out]
    assert kinds == [
        ("RowsStart", stamps[0]),
        ("FeedRow", 0),
        ("FeedRow", 0),
        ("WatermarkPoint", point_before(1000)),
        ("FeedRow", 0),
        ("WatermarkPoint", point_before(3000)),
        ("FeedRow", 0),
        ("WatermarkPoint", point_before(3_600_000)),
        ("FeedRow", 0),
        ("WatermarkPoint", stamps[-1]),
    ]
    intervals = [physical_ms(ts) // 1000 for ts in stamps]
    points = [r.ts for r in out if isinstance(r, WatermarkPoint)]
    assert points == [*points_of_intervals(intervals, 1000), stamps[-1]]
    assert isinstance(out[0], RowsStart)


def test_places_order_lines_and_turn_back_into_file_lines() -> None:
    survey = FeedSurvey.collect(
        [
            ("n", "b.jsonl", 0, 7),
            ("n", "a.jsonl", 100, 5),
            ("n", "a.jsonl", 0, 4),
            ("t", "a.jsonl", 0, 50, 60),
            ("t", "b.jsonl", 0, 70, 90),
            ("r", "a.jsonl", 100, 2, 61),
            ("i", (3, 1)),
            ("i", (1, 2)),
        ]
    )
    assert survey.ranks == {"a.jsonl": 0, "b.jsonl": 1}
    assert place_of(0, 0, 3) < place_of(0, 100, 0) < place_of(1, 0, 0)
    assert survey.line_of(place_of(0, 100, 2)) == ("a.jsonl", 7)
    assert survey.line_of(place_of(1, 0, 0)) == ("b.jsonl", 1)
    assert survey.first_row == (place_of(0, 100, 2), 61)
    assert (survey.first_ts, survey.last_ts) == (50, 90)
    assert survey.intervals == (1, 2, 3)


def test_first_problem_is_the_earliest_of_chunk_and_cross_chunk_ones() -> None:
    clean = ChunkReport(0, (0, 10), 20, -1, None)
    goes_back = ChunkReport(100, (100, 15), 30, -1, None)
    assert first_problem([goes_back, clean]) == InputProblem(
        100, "commitTs 15 goes back (previous 20)"
    )
    resolved = ChunkReport(0, (0, 10), 20, 20, None)
    after = ChunkReport(100, (100, 20), 25, -1, InputProblem(105, "bad value", "t", "c"))
    assert first_problem([resolved, after]) == InputProblem(
        100, "commitTs 20 is not after resolved ts 20"
    )
    fine = ChunkReport(100, (100, 21), 25, -1, InputProblem(105, "bad value", "t", "c"))
    assert first_problem([resolved, fine]) == InputProblem(105, "bad value", "t", "c")
    assert first_problem([clean]) is None


def test_pack_groups_balances_by_weight() -> None:
    weights = {1: 100, 2: 60, 3: 50, 4: 10}
    assign = pack_groups(weights, 2)
    loads = [0, 0]
    for group, task in assign.items():
        loads[task] += weights[group]
    assert loads == [110, 110]  # 100+10 and 60+50: greedy, heaviest first


class _Recorder:
    def __init__(self) -> None:
        self.sent: list[tuple[str, int, int]] = []
        self.closed = 0

    async def partition_count(self, topic: str) -> int:
        return 6

    async def send(self, topic: str, partition: int, records: Sequence[Record]) -> None:
        self.sent.append((topic, partition, len(records)))

    async def close(self) -> None:
        self.closed += 1


async def test_an_owned_partition_shows_one_partition_of_one_topic() -> None:
    inner = _Recorder()
    view = owned_partition(inner, "t", 4)
    assert (await view.partition_count("t"), await view.partition_count("other")) == (1, 0)
    await view.send("t", 0, [(None, b"x")])
    assert inner.sent == [("t", 4, 1)]
    with pytest.raises(Exception, match="owner of topic 't' partition 4"):
        await view.send("other", 0, [(None, b"x")])
    await view.close()
    await view.close()
    assert inner.closed == 1


async def test_partition_player_waits_for_every_table_and_moves_the_clock_at_watermarks() -> None:
    """A DDL is written after all earlier rows of every table are acknowledged, a watermark
    after everything at or below it, and the feed clock moves only at watermarks."""
    first, second = _table(1, "a"), _table(2, "b")
    sink = LateSink(wants_txn=True, seed=3, max_turns=5)
    ddl_sink = RecordingDDLSink(sink)
    clock = FeedClock()
    clock.observe_ts(compose_ts(1000))
    player = partition_player(
        sink,
        ddl_sink,
        lambda table_id: TableSink(table_id, sink),
        live_tables=lambda ts: [first, second],
        clock=clock,
        interval_ms=1000,
    )

    def row(table: object, ms: int) -> FeedRow:
        ts = compose_ts(ms)
        return FeedRow(RowChangedEvent(ts - 1, ts, table, None, {"id": ms}))  # type: ignore[arg-type]

    alter = DDLEvent(compose_ts(700), DDLType.ALTER, "ALTER", second, second)
    records = [
        row(first, 100),
        row(second, 200),
        row(first, 600),
        FeedDDL(alter.commit_ts, 0, alter),
        row(second, 800),
        WatermarkPoint(point_before(1000)),
        row(first, 1500),
        FeedResolved(compose_ts(1500)),
    ]
    clock_seen: list[int] = []
    original = sink.write_events

    def spy(events: object) -> None:
        clock_seen.append(clock.now_ms())
        original(events)  # type: ignore[arg-type]

    sink.write_events = spy  # type: ignore[method-assign]
    stats = await player.play(records)
    ((_, acked_at_ddl),) = ddl_sink.ddls
    early = {id(r) for r in sink.written if r.commit_ts < alter.commit_ts}
    assert early <= acked_at_ddl and len(early) == 3
    watermarks = [(ts, acked) for ts, _, acked in ddl_sink.watermarks]
    assert [ts for ts, _ in watermarks] == [point_before(1000), compose_ts(1500)]
    assert {id(r) for r in sink.written if r.commit_ts <= point_before(1000)} <= watermarks[0][1]
    assert set(clock_seen) <= {1000, 2000} and clock.now_ms() == 2000
    assert (stats.ddl, stats.watermarks, stats.checkpoint_ts) == (1, 2, compose_ts(1500))
    await asyncio.sleep(0)


def test_an_owner_gets_its_topics_ddls_every_point_and_the_start_of_rows() -> None:
    first, second = _table(1, "a"), _table(2, "b")
    create_a = DDLEvent(compose_ts(900), DDLType.CREATE, "CREATE", first)
    create_b = DDLEvent(compose_ts(950), DDLType.CREATE, "CREATE", second)
    plan = PlayPlan(
        sink_uri="file:///x",
        config_text=None,
        feed_clock=True,
        interval_ms=1000,
        owners=(("ta", 0), ("tb", 0)),
        partition_counts={"ta": 1, "tb": 1},
        ddls=(create_a, create_b),
        ddl_keys=((create_a.commit_ts, record_seq(1)), (create_b.commit_ts, record_seq(2))),
        ddl_topics=("ta", "tb"),
        resolved=(compose_ts(1500),),
        first_row=(compose_ts(1200), record_seq(3, START_SUB)),
        first_ts=create_a.commit_ts,
        last_ts=compose_ts(2500),
        intervals=(0, 1, 2),
    )
    kinds = [(type(r).__name__, key[0]) for key, r in plan.owner_events(1)]
    assert kinds == [
        ("FeedDDL", create_b.commit_ts),
        ("WatermarkPoint", point_before(1000)),
        ("RowsStart", compose_ts(1200)),
        ("WatermarkPoint", compose_ts(1500)),
        ("WatermarkPoint", point_before(2000)),
        ("WatermarkPoint", compose_ts(2500)),
    ]
    assert [t.table for t in plan.live_tables(compose_ts(920))] == ["a"]


def test_the_survey_finds_the_intervals_of_every_record_without_parsing_rows() -> None:
    from tisink.feed.spark.survey import survey_partition

    lines = [
        f'{{"type":"row","commitTs":{compose_ts(1500)},"op":"INSERT"}}',
        f'{{"type":"resolved","ts":{compose_ts(4200)}}}',
        "",
        f'{{"type":"row","commitTs": {compose_ts(9_000_100)}}}',
    ]
    items = list(survey_partition([("f", 0, text) for text in lines], 1000))
    ((found,),) = [item[1:] for item in items if item[0] == "i"]
    assert sorted(found) == [1, 4, 9000]
