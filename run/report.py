"""``tisink play --report DIR``: the summary as JSON and a chart of the play over time.

Charts are drawn with matplotlib's Agg canvas on a bare ``Figure`` (no pyplot, no display, no
global state), so they work on a server and inside tests.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from tisink.run.summary import RunSummary

SUMMARY_FILE = "summary.json"
CHART_FILE = "play.png"


def write_play_report(summary: RunSummary, folder: Path) -> list[Path]:
    """Write ``summary.json`` and ``play.png`` into ``folder``; the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = [folder / SUMMARY_FILE, folder / CHART_FILE]
    summary.write(written[0])
    play_chart(summary.to_dict(), written[1])
    return written


def play_chart(summary: dict[str, Any], path: Path) -> None:
    """Rows/s and p99 acknowledgement latency per second, one above the other."""
    series = summary.get("series") or []
    figure = Figure(figsize=(9, 5.5), layout="constrained")
    FigureCanvasAgg(figure)
    rows_axes, latency_axes = figure.subplots(2, 1, sharex=True)
    t = [entry["t"] for entry in series]
    rows_axes.bar(t, [entry["rows"] for entry in series], width=0.9, color="tab:blue")
    rows_axes.set_ylabel("rows/s acknowledged")
    rate = summary.get("rate")
    if rate:
        rows_axes.axhline(rate["target"], color="tab:gray", linestyle="--", label="--rate")
        rows_axes.legend(loc="lower right")
    latency_axes.plot(t, [entry["p99_ms"] for entry in series], marker=".", color="tab:red")
    latency_axes.set_ylabel("p99 latency (ms)")
    latency_axes.set_xlabel("seconds since the command started")
    latency_axes.set_ylim(bottom=0)
    if not series:
        rows_axes.text(0.5, 0.5, "no rows acknowledged", ha="center", transform=rows_axes.transAxes)
    figure.suptitle(_title(summary))
    figure.savefig(path, dpi=100)


def _title(summary: dict[str, Any]) -> str:
    latency = summary.get("latency_ms") or {}
    return (
        f"{_run_name(summary.get('engine', ''))} into {summary.get('sink_uri', '')}\n"
        f"{summary.get('rows', 0):,} rows, {summary.get('rows_per_s', 0):,.0f} rows/s, "
        f"{summary.get('mb_per_s', 0):.2f} MB/s, latency p99 {latency.get('p99', 0)} ms, "
        f"max {latency.get('max', 0)} ms"
    )


def _run_name(engine: str) -> str:
    """``inline play``, ``spark play``; a replay (``tisink replay``) is no play."""
    return engine if engine == "replay" else f"{engine} play"
