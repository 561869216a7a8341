"""What ``tisink bench`` writes: ``bench.json`` (every figure), ``bench.md`` (the tables) and
the same tables on the console with Rich."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
from rich import box
from rich.table import Table

from tisink.bench.results import BenchResult
from tisink.run.console import stdout_console

COLUMNS = ("case", "rows/s", "baseline", "baseline rows/s", "x baseline", "bytes/row", "p99 ms")


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
    """The tables; a run stopped part way (``meta`` has ``not_run``) first lists the groups it
    did not run."""
    about = ", ".join(f"{k}: {v}" for k, v in meta.items() if k != "not_run")
    lines = ["# tisink bench", "", about, ""]
    if "not_run" in meta:
        lines += ["## not run", "", *(f"- {name}" for name in meta["not_run"]), ""]
    for group, members in groups(results).items():
        lines += [f"## {group}", "", "| " + " | ".join((*COLUMNS, "note")) + " |"]
        lines.append("|" + "---|" * (len(COLUMNS) + 1))
        for result in members:
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells(result)) + " |")
        lines.append("")
    return "\n".join(lines)


CONSOLE_COLUMNS = ("case", "rows/s", "base rows/s", "x base", "bytes/row", "p99 ms")
"""The console's figures (``cells`` indices 0, 1, 3, 4, 5, 6); the baseline's name and the note
follow the table, so it fits an 80-column terminal."""
_FIGURES = (0, 1, 3, 4, 5, 6)


def print_tables(results: Sequence[BenchResult]) -> None:
    """The tables on stdout, one per group, at the terminal's width: case names and figures
    whole, then a line per case naming its baseline and its note."""
    console = stdout_console()
    for group, members in groups(results).items():
        table = Table(title=group, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        rows = [cells(result) for result in members]
        for name, index in zip(CONSOLE_COLUMNS, _FIGURES, strict=True):
            widest = max(len(name), *(len(row[index]) for row in rows))
            table.add_column(
                name, justify="left" if index == 0 else "right", no_wrap=True, min_width=widest
            )
        for row in rows:
            table.add_row(*(row[index] for index in _FIGURES))
        console.print(table)
        for result, row in zip(members, rows, strict=True):
            about = "; ".join(p for p in (f"baseline {row[2]}" if row[2] else "", row[-1]) if p)
            if about:
                console.print(f"  {result.case}: {about}", highlight=False)
