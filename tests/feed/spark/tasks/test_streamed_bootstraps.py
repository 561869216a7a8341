"""The cadence decided while rows stream gives the sends the whole-feed plan gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.codec.bootstrap import BootstrapSettings
from tisink.feed.spark.bootstraps import TableIntervals, planned_bootstraps
from tisink.feed.spark.driver.sources import WorkloadInput
from tisink.feed.spark.plan import record_seq
from tisink.feed.spark.tasks.streamed_bootstraps import StreamedBootstraps
from tisink.feed.watermarks import interval_of
from tisink.feed.workload import load_scenario
from tisink.model.tso import compose_ts

INTERVAL_MS = 1000
DEMO = WorkloadInput(load_scenario("demo"), 3, 200)
TABLES = [ddl.table for ddl in DEMO.ddls]
REFS = [ref for ref, table in enumerate(TABLES) if table is not None]
TOPIC_OF = {t.table_id: "t" if t.table_id % 2 else "u" for t in TABLES if t is not None}
COUNTS = {"t": 3, "u": 2}

# (ms after the previous message, rows of the transaction, plan DDL of each row)
messages = st.lists(
    st.tuples(
        st.sampled_from([0, 1, 300, 999, 1000, 4000, 6000, 40_000]),
        st.lists(st.sampled_from(REFS), min_size=1, max_size=4),
    ),
    min_size=1,
    max_size=60,
)


@settings(deadline=None)
@given(
    messages,
    st.sampled_from([(5, 3), (5, 50), (1, 10_000), (120, 2)]),
    st.booleans(),
    st.sampled_from([0, 3_000, 70_000]),
)
def test_streamed_sends_are_the_planned_sends(
    txns: list[tuple[int, list[int]]],
    cadence: tuple[int, int],
    to_all: bool,
    quiet_after_ms: int,
) -> None:
    bootstrap = BootstrapSettings(cadence[0], cadence[1], to_all)
    ms = 1_714_550_400_000
    stream: list[tuple[int, tuple[int, int], int]] = []
    for logical, (gap, refs) in enumerate(txns, start=1):
        ms += gap
        ts = compose_ts(ms, logical)  # one transaction a commit ts
        for place, ref in enumerate(refs, start=1):
            table = TABLES[ref]
            assert table is not None
            stream.append((table.table_id, (ts, record_seq(place)), ref))
    # the grid also holds intervals without messages (a DDL's, a resolved record's)
    grid = {interval_of(key[0], INTERVAL_MS) for _, key, _ in stream}
    # the last watermark (its tick may send more), never before the last row: with no quiet
    # time it is the last transaction's own ts
    last_ts = max(compose_ts(ms + quiet_after_ms, 1), stream[-1][1][0])
    grid.add(interval_of(last_ts, INTERVAL_MS))
    counted = TableIntervals(INTERVAL_MS, [])
    streamed = StreamedBootstraps(
        bootstrap, TABLES, TOPIC_OF, COUNTS, sorted(grid), INTERVAL_MS, last_ts
    )
    got = []
    for table_id, key, ref in stream:
        counted.add(table_id, key, ref)
        streamed.add(table_id, key, ref)
        due = streamed.take()
        assert all(p.key <= key for p in due)
        got.extend(due)
    streamed.finish()
    got.extend(streamed.take())
    planned = planned_bootstraps(
        bootstrap,
        TABLES,  # type: ignore[arg-type]
        TOPIC_OF,
        COUNTS,
        sorted(grid),
        INTERVAL_MS,
        counted.entries(),
        last_ts,
    )
    assert got == planned
    assert [p.key for p in got] == sorted(p.key for p in got)
