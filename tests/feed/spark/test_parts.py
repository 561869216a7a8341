"""Pure parts of the Spark engine, without Spark: watermark points, places and lines, the
cross-chunk checks, an owner's events, the owned-partition producer view and the partition
player's ordering."""

from __future__ import annotations

from tests.feed.spark.survey_rows import survey_rows
from tisink.feed.format.records import FeedRow
from tisink.feed.play_records import RowsStart, WatermarkPoint
from tisink.feed.spark.driver.survey import FeedSurvey
from tisink.feed.spark.plan import START_SUB, PlayPlan, place_of, record_seq
from tisink.feed.spark.reports import ChunkReport, InputProblem, first_problem
from tisink.feed.watermarks import (
    interval_end_ts,
    point_before,
    points_of_intervals,
    with_watermark_points,
)
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table
from tisink.model.tso import compose_ts, physical_ms


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
            ("n", 1, 0, 7),
            ("n", 0, 100, 5),
            ("n", 0, 0, 4),
            ("t", 0, 0, 50, 60),
            ("t", 1, 0, 70, 90),
            ("r", 0, 100, 2, 61),
            ("i", (3, 1)),
            ("i", (1, 2)),
        ],
        ["a b.jsonl", "a!.jsonl"],  # by rank, as the inline engine lists and names them
    )
    assert place_of(0, 0, 3) < place_of(0, 100, 0) < place_of(1, 0, 0)
    assert survey.line_of(place_of(0, 100, 2)) == ("a b.jsonl", 7)
    assert survey.line_of(place_of(1, 0, 0)) == ("a!.jsonl", 1)
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
    kinds = [(type(r).__name__, key[0]) for key, r in plan.owner_events([1])]
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
    lines = [
        f'{{"type":"row","commitTs":{compose_ts(1500)},"op":"INSERT"}}',
        f'{{"type":"resolved","ts":{compose_ts(4200)}}}',
        "",
        f'{{"type":"row","commitTs": {compose_ts(9_000_100)}}}',
    ]
    items = list(survey_rows([("f", 0, text) for text in lines], 1000))
    ((found,),) = [item[1:] for item in items if item[0] == "i"]
    assert sorted(found) == [1, 4, 9000]
