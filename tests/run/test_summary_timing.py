"""One meaning of rows_per_s on every engine: rows over the command's start to the last
acknowledgement; the writing phase has a figure of its own."""

from __future__ import annotations

from tisink.run.summary import RunSummary


def test_rows_per_s_counts_start_up_and_writing_rows_per_s_does_not() -> None:
    summary = RunSummary(rows=1200)
    summary.set_timing(startup_s=2.0, sending_s=4.0)
    assert (summary.startup_s, summary.rows_per_s, summary.writing_rows_per_s) == (
        2.0,
        200.0,
        300.0,
    )


def test_no_time_no_rate() -> None:
    summary = RunSummary(rows=10)
    summary.set_timing(startup_s=0.0, sending_s=0.0)
    assert summary.rows_per_s == summary.writing_rows_per_s == 0.0
