"""The survey: each split's lines, records and edges, and the watermark intervals of a feed's
records, found by bisection over their times as the reader reads them."""

from __future__ import annotations

from itertools import accumulate

import orjson
import pyarrow as pa
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.feed.spark.survey_rows import survey_rows
from tisink.feed.spark.driver.survey import run_intervals
from tisink.model.tso import LOGICAL_BITS, compose_ts

INTERVAL_MS = 1000
_GAPS = st.sampled_from([0, 0, 0, 0, 1, 7, 400, 999, 1000, 2500, 100_000])


def _line(kind: str, ts: int, shape: int) -> str:
    """A good record at ``ts``: a row (its commitTs first, or last after a column named
    ``commitTs``), a DDL or a resolved record; or a blank line."""
    if kind == "row":
        head = {"type": "row", "commitTs": ts, "startTs": ts - 1}
        after = {"after": {"commitTs": 12345, "id": 1}}
        return orjson.dumps({**after, **head} if shape else {**head, **after}).decode()
    if kind == "ddl":
        return orjson.dumps({"type": "ddl", "commitTs": ts, "ddlType": "CREATE"}).decode()
    if kind == "resolved":
        return orjson.dumps({"type": "resolved", "ts": ts}).decode()
    return " " * shape


@settings(max_examples=300)
@given(
    st.lists(
        st.tuples(_GAPS, st.sampled_from(["row", "ddl", "resolved", "blank"]), st.booleans()),
        min_size=1,
        max_size=120,
    ),
    st.sampled_from([1, 1, 16, 10**6]),
)
@example(  # the middle of a span is blank up to its end: the line before it is read
    [(0, "row", 0), (1000, "row", 0), (0, "blank", 1), (0, "blank", 1), (1000, "row", 0)],
    1,
)
def test_the_intervals_are_those_of_the_records_times(
    lines: list[tuple[int, str, bool]], share: int
) -> None:
    """Whether a run is bisected or read whole (``share``), its intervals are exactly those of
    its records' times as the reader reads them (a row's own commitTs, not a column's)."""
    times = list(accumulate(gap for gap, _, _ in lines))
    texts = [
        _line(kind, compose_ts(1_000_000 + ms, ms % 3), int(shape))
        for ms, (_, kind, shape) in zip(times, lines, strict=True)
    ]
    expected = {
        (compose_ts(1_000_000 + ms, ms % 3) >> LOGICAL_BITS) // INTERVAL_MS
        for ms, (_, kind, _) in zip(times, lines, strict=True)
        if kind != "blank"
    }
    assert run_intervals(pa.array(texts), INTERVAL_MS, share) == expected
    items = list(survey_rows([("f", 0, text) for text in texts], INTERVAL_MS))
    ((found,),) = [item[1:] for item in items if item[0] == "i"]
    assert set(found) == expected


def test_each_split_reports_its_lines_records_and_edges() -> None:
    lines = [
        "",
        '{"type":"ddl","commitTs":5,"ddlType":"CREATE"}',
        '{"type":"row","commitTs":"x"}',
        '{"type":"row","commitTs":7,"after":{"a":"\\"ddl\\""}}',
        '{"type":"resolved","ts":8}',
        '{"type":"row","commitTs":9}',
        "  ",
    ]
    rows = [("f", 0, text) for text in lines[:4]] + [("f", 99, text) for text in lines[4:]]
    items = set(survey_rows(rows, INTERVAL_MS))
    assert {item for item in items if item[0] != "i"} == {
        ("d", "f", 0, 1, lines[1]),
        ("r", "f", 0, 3, 7),
        ("n", "f", 0, 4),
        ("t", "f", 0, 5, 7),
        ("s", "f", 99, 0, 8),
        ("r", "f", 99, 1, 9),
        ("n", "f", 99, 3),
        ("t", "f", 99, 8, 9),
    }
