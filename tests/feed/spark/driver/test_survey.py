"""The survey reads a line's commit ts without parsing it, in Arrow, as the rule says: the
digits and spaces after the first ``"commitTs":`` (or, without one, ``"ts":``) if ``int``
reads them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.feed.spark.survey_rows import survey_rows
from tisink.model.tso import LOGICAL_BITS

INTERVAL_MS = 1000


def _rule(text: str) -> int | None:
    """The rule, one line at a time."""
    at = text.find('"commitTs":')
    start = at + 11 if at >= 0 else text.find('"ts":') + 5
    if start < 5:
        return None
    end = start
    while end < len(text) and text[end] in " 0123456789":
        end += 1
    try:
        return int(text[start:end])
    except ValueError:
        return None


_PIECES = st.sampled_from(
    ['"commitTs":', '"ts":', " ", "1", "0", "9", "12345678901234567890", '"', "x", ",", "é", "{"]
)
_LINES = st.lists(st.lists(_PIECES, max_size=8).map("".join), min_size=1, max_size=30)


@given(_LINES)
def test_the_intervals_are_the_rules_for_any_line(lines: list[str]) -> None:
    items = list(survey_rows([("f", 0, text) for text in lines], INTERVAL_MS))
    ((found,),) = [item[1:] for item in items if item[0] == "i"]
    expected = {
        (ts >> LOGICAL_BITS) // INTERVAL_MS
        for text in lines
        if text and not text.isspace() and (ts := _rule(text)) is not None
    }
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
