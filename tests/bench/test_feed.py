"""The feed group: generation and read + validate of demo rows, the latter against a parse."""

from __future__ import annotations

from tisink.bench.feed import feed_group


def test_generation_and_reading_are_measured_against_a_parse() -> None:
    generate, read = feed_group("g", 300, 1)
    assert (generate.case, read.case) == ("generate", "read + validate")
    assert not generate.baseline and generate.rows_per_s > 0
    assert read.baseline == "orjson.loads" and read.baseline_rows_per_s
    assert 0 < read.ratio < 1  # validating a line costs more than parsing it
    assert read.bytes_per_row and read.bytes_per_row > 100  # demo lines are wide
    assert read.note.endswith("lines")
