"""What every play measures: latency percentiles, MB/s, the per-second series, the rate held."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tisink.play.run import PlaySpec, run_play
from tisink.run.measures import Measured, apply_measures, series, steadiness
from tisink.run.summary import RunSummary
from tisink.tablesink import LatencyReport
from tisink.tablesink.latency_report import SecondLatency

START = 1_700_000_000.6
"""The command started 0.6 s into epoch second 1_700_000_000: that second is ``t`` 0."""


def report(rows_by_second: dict[int, int]) -> LatencyReport:
    return LatencyReport(
        b"", 0, {s: SecondLatency(n, b"", 1500) for s, n in rows_by_second.items() if n}
    )


def test_every_second_from_the_first_to_the_last_has_an_entry() -> None:
    base = int(START)
    entries = series(report({base + 2: 10, base + 5: 7}), {base + 3: (4, 400)}, START)
    assert [e["t"] for e in entries] == [2, 3, 4, 5]
    assert [e["rows"] for e in entries] == [10, 0, 0, 7]
    assert [(e["messages"], e["bytes"]) for e in entries] == [(0, 0), (4, 400), (0, 0), (0, 0)]
    assert [e["p99_ms"] for e in entries] == [1.5, 0.0, 0.0, 1.5]
    assert series(LatencyReport(), {}, START) == []


@given(
    st.dictionaries(st.integers(0, 30), st.integers(0, 10**6), max_size=12),
    st.dictionaries(
        st.integers(0, 30), st.tuples(st.integers(0, 10**4), st.integers(0, 10**8)), max_size=12
    ),
)
def test_the_series_adds_up(rows: dict[int, int], sinks: dict[int, tuple[int, int]]) -> None:
    base = int(START)
    latency = report({base + s: n for s, n in rows.items()})
    seconds = {base + s: v for s, v in sinks.items()}
    entries = series(latency, seconds, START)
    assert sum(e["rows"] for e in entries) == sum(rows.values()) == latency.rows
    assert sum(e["messages"] for e in entries) == sum(m for m, _ in sinks.values())
    assert sum(e["bytes"] for e in entries) == sum(b for _, b in sinks.values())
    ts = [e["t"] for e in entries]
    assert ts == list(range(ts[0], ts[-1] + 1)) if ts else not (any(rows.values()) or sinks)


def test_steadiness_leaves_out_the_partial_first_and_last_seconds() -> None:
    entries = [{"rows": n} for n in (300, 1000, 990, 1010, 1000, 120)]
    held = steadiness(entries, 1000.0, 0.0004)
    assert held["achieved"] == 1000.0
    assert held["seconds"] == 4
    assert held["spread_pct"] == pytest.approx(0.71, abs=0.01)
    assert held["behind_s"] == 0.0
    assert steadiness(entries[:2], 1000.0, 2.5) == {
        "target": 1000.0,
        "achieved": 0.0,
        "spread_pct": 0.0,
        "seconds": 0,
        "behind_s": 2.5,
    }


def test_apply_measures_fills_the_summary() -> None:
    summary = RunSummary(rows=10, bytes=3_000_000)
    measured = Measured(report({int(START) + 1: 10}), {}, START, sending_s=2.0, rate=5.0)
    apply_measures(summary, measured)
    assert summary.mb_per_s == 1.5
    assert summary.latency_ms["count"] == 0  # the stand-in report has no histogram
    assert summary.series == [{"t": 1, "rows": 10, "messages": 0, "bytes": 0, "p99_ms": 1.5}]
    assert summary.rate is not None and summary.rate["target"] == 5.0


def test_an_inline_play_measures_every_row(tmp_path: Path) -> None:
    uri = f"file://{tmp_path / 'out'}?protocol=simple&partition-num=3"
    options = PlaySpec(workload="all-types", rows=400, sink_uri=uri, engine="inline")
    summary = run_play(options)
    assert summary.verified is True
    latency = summary.latency_ms
    assert latency["count"] == summary.rows == 400
    assert 0 <= latency["p50"] <= latency["p99"] <= latency["p999"] <= latency["max"]
    assert sum(e["rows"] for e in summary.series) == summary.rows
    assert sum(e["messages"] for e in summary.series) == sum(summary.messages.values())
    assert sum(e["bytes"] for e in summary.series) == summary.bytes
    assert summary.mb_per_s > 0 and summary.rate is None


def test_a_paced_play_reports_the_rate_it_held(tmp_path: Path) -> None:
    uri = f"file://{tmp_path / 'out'}?protocol=simple"
    options = PlaySpec(
        workload="all-types", rate=2000, duration_s=0.25, sink_uri=uri, engine="inline"
    )
    assert options.workload_rows == 500
    summary = run_play(options)
    assert summary.rows == 500
    assert summary.rate is not None
    assert set(summary.rate) == {"target", "achieved", "spread_pct", "seconds", "behind_s"}
    assert summary.rate["target"] == 2000


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"duration_s": 5}, "--duration needs --rate"),
        ({"duration_s": 5, "rate": 10, "rows": 3}, "not both"),
        ({"duration_s": 5, "rate": 10, "feed": Path("f.jsonl")}, "plays all its rows"),
        ({"duration_s": 0, "rate": 10}, "positive number of seconds"),
    ],
)
def test_durations_that_mean_nothing_are_refused(changes: dict, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        PlaySpec(**changes)
