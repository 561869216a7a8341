"""``tisink play --engine inline`` writes the watermark policy's points into every partition,
under either clock: one before each interval of commit time that holds records, and the last
commit ts, each carrying the point itself once everything at or below it is acknowledged (as
the Spark engine does: tests/feed/spark)."""

from __future__ import annotations

import itertools
from pathlib import Path

import orjson
import pytest

from tisink.eventsink.file import read_file_topic
from tisink.feed.format.records import FeedRow
from tisink.feed.watermarks import points_of_intervals
from tisink.feed.workload import generate_records
from tisink.model.tso import physical_ms
from tisink.play.run import PlaySpec, run_play

SCENARIO = """
name = "one-table"
rows = 2000
rate = 400
[[tables]]
schema = "sbtest"
name = "sbtest1"
primary = ["id"]
columns = [
  { name = "id", type = "int", nullable = false },
  { name = "c", type = "char(30)", nullable = false },
]
"""


@pytest.mark.parametrize("feed_clock", [True, False])
def test_every_partition_gets_a_watermark_each_second_of_commit_time(
    tmp_path: Path, feed_clock: bool
) -> None:
    scenario = tmp_path / "one-table.toml"
    scenario.write_text(SCENARIO, encoding="utf-8")
    config = tmp_path / "changefeed.toml"
    config.write_text('[[sink.dispatchers]]\nmatcher = ["*.*"]\npartition = "index-value"\n')
    out = tmp_path / "out"
    summary = run_play(
        PlaySpec(
            workload=str(scenario),
            sink_uri=f"file://{out}?protocol=simple&partition-num=3",
            config_path=config,
            engine="inline",
            clock="feed" if feed_clock else "wall",
        )
    )
    assert summary.verified is True
    assert summary.startup_s >= 0 and summary.rows_per_s > 0 and summary.elapsed_s > 0
    rows = [
        r.row.commit_ts for r in generate_records(str(scenario), 0, None) if isinstance(r, FeedRow)
    ]
    points = points_of_intervals([physical_ms(ts) // 1000 for ts in rows], 1000)
    assert len(points) >= 4
    marks: dict[int, list[int]] = {}
    for partition, _, _, value in read_file_topic(out, "tidb-cdc"):
        message = orjson.loads(value)
        if message["type"] == "WATERMARK":
            marks.setdefault(partition, []).append(message["commitTs"])
    assert sorted(marks) == [0, 1, 2]
    for written in marks.values():
        assert written == [*points, rows[-1]]
        gaps = [physical_ms(b) - physical_ms(a) for a, b in itertools.pairwise(written)]
        assert max(gaps) <= 2000, gaps
