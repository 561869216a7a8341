"""The BOOTSTRAP plan of partition owners: TiCDC's cadence run once over the feed's counts."""

from __future__ import annotations

from tisink.codec.bootstrap import BootstrapSettings
from tisink.feed.spark.bootstraps import TICK_SUB, TableIntervals, merge, planned_bootstraps
from tisink.feed.spark.plan import AFTER_ALL, record_seq
from tisink.feed.spark.reports import TableInterval
from tisink.feed.watermarks import point_before
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table
from tisink.model.tso import compose_ts


def _table(table_id: int, version: int = 1) -> TableInfo:
    return make_table(
        "s",
        f"t{table_id}",
        table_id,
        version,
        [ColumnInfo("id", "int", nullable=False)],
        [IndexInfo("primary", ("id",), unique=True, primary=True)],
    )


def _key(ms: int, place: int) -> tuple[int, int]:
    return compose_ts(ms), record_seq(place)


def test_counts_merge_across_chunks_keeping_the_first_and_last_message() -> None:
    left, right = TableIntervals(1000, [7, 7]), TableIntervals(1000, [7, 7])
    left.add(7, _key(1200, 5), 0)
    left.add(7, _key(1300, 6), 0)
    right.add(7, _key(1900, 2), 1)
    right.add(7, _key(2100, 3), 1)
    merged = merge([*right.entries(), *left.entries()])
    assert merged == [
        TableInterval(7, 1, 3, _key(1200, 5), 0, _key(1900, 2), 1),
        TableInterval(7, 2, 1, _key(2100, 3), 1, _key(2100, 3), 1),
    ]


def test_first_rows_count_and_time_triggers_as_the_inline_cadence_sends_them() -> None:
    a, b, a2 = _table(1), _table(2), _table(1, version=2)
    settings = BootstrapSettings(send_bootstrap_interval_in_sec=20, send_bootstrap_in_msg_count=3)
    counts = [
        TableInterval(1, 10, 2, _key(10_100, 1), 0, _key(10_200, 2), 0),
        TableInterval(2, 12, 1, _key(12_500, 9), 1, _key(12_500, 9), 1),
        # table 1 passes three messages since its last BOOTSTRAP, on its new version
        TableInterval(1, 14, 2, _key(14_000, 11), 0, _key(14_100, 12), 2),
    ]
    planned = planned_bootstraps(
        settings,
        [a, b, a2],
        {1: "ta", 2: "tb"},
        {"ta": 3, "tb": 2},
        [10, 12, 14, 15, 20, 31, 36],
        1000,
        counts,
    )
    seen = [
        (p.key, p.send.table.table_id, p.send.table.version, p.send.partitions) for p in planned
    ]
    tick = (point_before(15_000), AFTER_ALL + TICK_SUB)
    late = (point_before(36_000), AFTER_ALL + TICK_SUB)
    assert seen == [
        ((compose_ts(10_100), record_seq(1) & ~3), 1, 1, (0, 1, 2)),
        ((compose_ts(12_500), record_seq(9) & ~3), 2, 1, (0, 1)),
        # the first tick 5 s after the start, once the count is reached: the newest version
        (tick, 1, 2, (0, 1, 2)),
        # the first tick at least 20 s after their last BOOTSTRAP (16 s and 13 s): at 37 s
        (late, 1, 2, (0, 1, 2)),
        (late, 2, 1, (0, 1)),
    ]


def test_the_tick_after_the_last_watermark_sends_what_is_due_as_the_inline_player_does() -> None:
    """The inline player runs the sink's timers after its last watermark too, with the feed
    clock at the end of the interval that follows it: a table past its message count then
    gets a BOOTSTRAP after every other message."""
    a = _table(1)
    settings = BootstrapSettings(send_bootstrap_interval_in_sec=600, send_bootstrap_in_msg_count=3)
    counts = [
        TableInterval(1, 10, 1, _key(10_100, 1), 0, _key(10_100, 1), 0),
        TableInterval(1, 14, 3, _key(14_100, 2), 0, _key(14_900, 4), 0),
    ]
    last = point_before(15_000)  # its interval's end is 16 s: 5 s after the cadence's start

    def plan(last_ts: int | None) -> list[tuple[object, ...]]:
        planned = planned_bootstraps(
            settings, [a], {1: "ta"}, {"ta": 3}, [10, 11, 14], 1000, counts, last_ts
        )
        return [(p.key, p.send.table.table_id) for p in planned]

    first = ((compose_ts(10_100), record_seq(1) & ~3), 1)
    assert plan(None) == [first]
    assert plan(last) == [first, ((last, AFTER_ALL + TICK_SUB), 1)]
    # a last watermark inside the interval: its end is 15 s, too early for a tick
    assert plan(compose_ts(14_950)) == [first]
