"""``--report``'s files and the console's summary: the table, the rate line, the perf line."""

from __future__ import annotations

from pathlib import Path

import orjson
from rich.console import Console

from tisink.run.report import write_play_report
from tisink.run.summary import RunSummary
from tisink.summary_view import perf_line, print_summary

PNG = b"\x89PNG\r\n\x1a\n"
LATENCY = {"count": 9, "p50": 1.5, "p95": 2.25, "p99": 3.0, "p999": 4.0, "max": 4.5, "mean": 1.75}


def summary(**changes: object) -> RunSummary:
    base = RunSummary(rows=9, bytes=900, rows_per_s=4.5, mb_per_s=0.00045, latency_ms=LATENCY)
    base.series = [
        {"t": 3, "rows": 4, "messages": 4, "bytes": 400, "p99_ms": 2.0},
        {"t": 4, "rows": 5, "messages": 5, "bytes": 500, "p99_ms": 3.0},
    ]
    for key, value in changes.items():
        setattr(base, key, value)
    return base


def test_the_report_is_the_summary_and_a_chart(tmp_path: Path) -> None:
    played = summary(
        rate={"target": 5.0, "achieved": 4.5, "spread_pct": 1.0, "seconds": 1, "behind_s": 0.0}
    )
    written = write_play_report(played, tmp_path / "report")
    assert [p.name for p in written] == ["summary.json", "play.png"]
    assert orjson.loads(written[0].read_bytes()) == orjson.loads(orjson.dumps(played.to_dict()))
    assert written[1].read_bytes().startswith(PNG)


def test_a_play_without_acknowledgements_still_charts(tmp_path: Path) -> None:
    (_, chart) = write_play_report(RunSummary(), tmp_path)
    assert chart.read_bytes().startswith(PNG)


def test_the_last_line_reads_like_a_producer_benchmark() -> None:
    assert perf_line(summary().to_dict()) == (
        "9 rows acknowledged, 4.5 rows/sec (0.00 MB/sec), 1.75 ms avg latency, "
        "4.50 ms max latency, 1.50 ms 50th, 2.25 ms 95th, 3.00 ms 99th, 4.00 ms 99.9th."
    )
    assert perf_line(RunSummary().to_dict()) == "0 rows acknowledged, 0.0 rows/sec (0.00 MB/sec)."
    failed = perf_line(summary(rows=20000).to_dict())
    assert failed.startswith("9 rows acknowledged (20000 read), 4.5 rows/sec")


def test_the_console_shows_totals_rate_and_the_last_line_but_not_the_series() -> None:
    console = Console(record=True, width=200)
    rate = {"target": 5.0, "achieved": 4.5, "spread_pct": 1.0, "seconds": 1, "behind_s": 0.4}
    print_summary(console, summary(rate=rate).to_dict())
    text = console.export_text()
    lines = text.strip().splitlines()
    assert "series" not in text and "stopped_by" not in text
    assert "latency_ms" in text and "p99 3.0" in text
    assert "rate 5 rows/s: achieved 4.5 rows/s over 1 whole seconds, spread 1 %" in text
    assert "could not keep up: the rows took 0.4 s longer than the rate allows" in text
    assert lines[-1].startswith("9 rows acknowledged, 4.5 rows/sec")


def test_a_replay_shows_no_play_only_fields_but_its_json_keeps_them() -> None:
    replay = RunSummary(rows=3, messages={"records": 3}, engine="replay").to_dict()
    play = RunSummary(rows=3, engine="inline").to_dict()
    shown = {}
    for name, data in (("replay", replay), ("play", play)):
        console = Console(record=True, width=200)
        print_summary(console, data)
        shown[name] = {
            line.split("│")[1].strip()
            for line in console.export_text().splitlines()
            if line.count("│") >= 2
        }
    assert {"ddl", "checkpoint_ts", "partitions"} <= shown["play"]
    assert not {"ddl", "checkpoint_ts", "partitions"} & shown["replay"]
    assert {"rows", "messages", "engine"} <= shown["replay"]
    assert {"ddl", "checkpoint_ts", "partitions"} <= replay.keys()
