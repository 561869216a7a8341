"""How a play's summary looks on the console: a table of the totals, then one line a performance
engineer can paste, worded like ``kafka-producer-perf-test``'s last line.

The per-second series stays out of the table (it is in ``--summary-json`` and the chart of
``--report``); injected faults show as counts by kind.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

HIDDEN = ("series",)
NOT_APPLICABLE = {"replay": ("ddl", "checkpoint_ts", "partitions")}
"""Fields an engine never fills: a replay sends records, it reads no DDL and moves no
checkpoint (``--summary-json`` keeps them, as zeros, so every engine's JSON has one shape)."""
BEHIND_WARNING_S = 0.1
"""Falling behind the schedule by less than this is timer noise, not a play that cannot keep up."""


def faults_cell(faults: list[dict[str, Any]]) -> str:
    """Injected faults counted by kind (the list, with offsets, is in ``--summary-json``)."""
    kinds = Counter(fault["kind"] for fault in faults)
    copies = sum(fault["messages"] for fault in faults)
    return ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items())) + f" ({copies} messages)"


def shown_rate(value: float) -> float:
    """A rate as the console shows it: to 0.1 rows/s, or two significant digits below 1
    (``--summary-json`` keeps every digit)."""
    return round(value, 1) if abs(value) >= 1 or value == 0 else float(f"{value:.2g}")


def _rate_text(value: float) -> str:
    """``shown_rate`` without a trailing ``.0``."""
    return repr(shown_rate(value)).removesuffix(".0")


def _cell(key: str, value: Any) -> str:
    if key == "faults" and isinstance(value, list):
        return faults_cell(value)
    if key == "rate" and isinstance(value, dict):
        value = {**value, "target": shown_rate(value["target"])}
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in value.items())
    return str(value)


def perf_line(summary: dict[str, Any]) -> str:
    """``N rows acknowledged, R rows/sec (M MB/sec), A ms avg latency, X ms max latency, p50,
    p95, p99 and p99.9``, the figures a producer benchmark ends with. N is what the sink
    acknowledged (``latency_ms.count``); the rows read follow when they differ (a failed
    play, or UPDATEs that changed a key and were written as DELETE + INSERT)."""
    latency = summary.get("latency_ms") or {}
    rows_per_s, mb_per_s = summary.get("rows_per_s", 0.0), summary.get("mb_per_s", 0.0)
    acked, read = latency.get("count", 0), summary.get("rows", 0)
    parts = [
        f"{acked} rows acknowledged" + (f" ({read} read)" if acked != read else ""),
        f"{rows_per_s:.1f} rows/sec ({mb_per_s:.2f} MB/sec)",
    ]
    if latency.get("count"):
        parts += [
            f"{latency['mean']:.2f} ms avg latency",
            f"{latency['max']:.2f} ms max latency",
            f"{latency['p50']:.2f} ms 50th",
            f"{latency['p95']:.2f} ms 95th",
            f"{latency['p99']:.2f} ms 99th",
            f"{latency['p999']:.2f} ms 99.9th",
        ]
    return ", ".join(parts) + "."


def rate_line(rate: dict[str, Any]) -> str:
    return (
        f"rate {_rate_text(rate['target'])} rows/s: achieved {_rate_text(rate['achieved'])} "
        f"rows/s over "
        f"{rate['seconds']} whole seconds, spread {rate['spread_pct']:g} %"
    )


def print_summary(console: Console, summary: dict[str, Any]) -> None:
    """The summary table, the rate held (paced plays), then the perf-test line."""
    table = Table("summary", "value", show_header=False)
    hidden = HIDDEN + NOT_APPLICABLE.get(summary.get("engine", ""), ())
    for key, value in summary.items():
        if key not in hidden and value is not None and (key != "faults" or value):
            table.add_row(key, escape(_cell(key, value)))
    console.print(table)
    rate = summary.get("rate")
    if rate:
        console.print(rate_line(rate))
        if rate["behind_s"] >= BEHIND_WARNING_S:
            console.print(
                f"[bold yellow]could not keep up:[/] the rows took {rate['behind_s']:g} s longer "
                "than the rate allows"
            )
    console.print(perf_line(summary), highlight=False, soft_wrap=True)
