"""What ``tisink bench`` writes: ``bench.json`` (every figure), ``bench.md`` (the tables) and
the same table on the console with Rich."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
from rich.console import Console
from rich.table import Table

from tisink.bench.results import BenchResult

COLUMNS = ("case", "rows/s", "baseline", "baseline rows/s", "x baseline", "bytes/row", "p99 ms")
WIDTH = 150
"""The console table's width at least (a pipe or a narrow terminal would squeeze it)."""


def _number(value: float | None, digits: int = 0) -> str:
    return "" if value is None else f"{value:,.{digits}f}"


def cells(result: BenchResult) -> list[str]:
    ratio = result.ratio
    return [
        result.case,
        _number(result.rows_per_s),
        result.baseline,
        _number(result.baseline_rows_per_s),
        "" if ratio is None else f"{ratio:.2f}",
        _number(result.bytes_per_row, 1),
        _number(result.p99_ms, 2),
        f"failed: {result.error}" if result.error else result.note,
    ]


def groups(results: Sequence[BenchResult]) -> dict[str, list[BenchResult]]:
    out: dict[str, list[BenchResult]] = {}
    for result in results:
        out.setdefault(result.group, []).append(result)
    return out


def write_json(results: Sequence[BenchResult], meta: dict[str, Any], path: Path) -> None:
    document = {"meta": meta, "results": [r.to_dict() for r in results]}
    path.write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n")


def markdown(results: Sequence[BenchResult], meta: dict[str, Any]) -> str:
    lines = ["# tisink bench", "", ", ".join(f"{k}: {v}" for k, v in meta.items()), ""]
    for group, members in groups(results).items():
        lines += [f"## {group}", "", "| " + " | ".join((*COLUMNS, "note")) + " |"]
        lines.append("|" + "---|" * (len(COLUMNS) + 1))
        for result in members:
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells(result)) + " |")
        lines.append("")
    return "\n".join(lines)


def print_tables(results: Sequence[BenchResult]) -> None:
    """The tables on stdout, one per group."""
    console = Console(width=max(Console().width, WIDTH))
    for group, members in groups(results).items():
        table = Table(*COLUMNS, "note", title=group, title_justify="left")
        for index in (1, 3, 4, 5, 6):  # the numbers
            table.columns[index].justify = "right"
        for result in members:
            table.add_row(*cells(result))
        console.print(table)
