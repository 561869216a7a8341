"""What the Apache Flink consumer tests share (tests/codec/canal and tests/codec/debezium): the
opt-in switch, the changelog Flink should give for a feed, running a job in the PyFlink
environment, reading its output and comparing the two changelogs.

A job prints one JSON line per changelog row, ``{"table": i, "kind": "+I", "values": [...]}``,
``i`` indexing the spec's tables, every value as Flink's STRING. A protocol's value module
supplies ``from_feed`` and ``from_flink``, which bring a feed value and Flink's text of it to
one comparable form.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tisink.model.events import RowChangedEvent
from tisink.model.table import ColumnInfo
from tisink.tablesink.split import changes_unique_key

FLINK_PYTHON = os.environ.get("TISINK_FLINK_PYTHON", "")
"""The Python of a separate environment holding PyFlink; empty: the Flink tests skip."""

needs_flink = pytest.mark.skipif(
    not FLINK_PYTHON, reason="opt-in: set TISINK_FLINK_PYTHON to a PyFlink environment's python"
)

Key = tuple[str, str]
Change = tuple[str, tuple[Any, ...]]
ValueOf = Callable[[ColumnInfo, Any], Any]
KINDS = ("+I", "-U", "+U", "-D")


def table_columns(rows: list[RowChangedEvent]) -> dict[Key, list[ColumnInfo]]:
    """Every stored column a table had in the feed, first definition kept (a consumer declares
    the union; a row of an older version leaves the newer columns null)."""
    out: dict[Key, dict[str, ColumnInfo]] = {}
    for row in rows:
        seen = out.setdefault((row.table.schema, row.table.table), {})
        for column in row.table.stored_columns:
            seen.setdefault(column.name, column)
    return {key: list(cols.values()) for key, cols in out.items()}


def hashable(value: Any) -> Any:
    """``value`` as a Counter key: lists and dicts as their sorted JSON text."""
    if isinstance(value, list | dict):
        return json.dumps(value, sort_keys=True)
    return value


def expected_changelog(rows: list[RowChangedEvent], from_feed: ValueOf) -> dict[Key, Counter]:
    """Per table, the changelog Flink should give: kind and the row's comparable values.
    Key-changing UPDATEs arrive as TiCDC splits them, -D and +I."""
    columns = table_columns(rows)
    out: dict[Key, Counter[Change]] = {}
    for row in rows:
        key = (row.table.schema, row.table.table)
        cols = columns[key]

        def image(values: dict[str, Any] | None, cols: list[ColumnInfo] = cols) -> tuple[Any, ...]:
            assert values is not None
            return tuple(hashable(from_feed(c, values.get(c.name))) for c in cols)

        changes = out.setdefault(key, Counter())
        if row.is_insert:
            changes[("+I", image(row.after))] += 1
        elif row.is_delete:
            changes[("-D", image(row.before))] += 1
        elif changes_unique_key(row):
            changes[("-D", image(row.before))] += 1
            changes[("+I", image(row.after))] += 1
        else:
            changes[("-U", image(row.before))] += 1
            changes[("+U", image(row.after))] += 1
    return out


def run_job(job: Path, spec_path: Path) -> subprocess.CompletedProcess[str]:
    """Run a Flink job script with the PyFlink environment's Python on a spec file."""
    return subprocess.run(
        [FLINK_PYTHON, str(job), str(spec_path)],
        capture_output=True,
        text=True,
        timeout=900,
    )


def read_changelog(
    stdout: str,
    tables: list[Key],
    columns: dict[Key, list[ColumnInfo]],
    from_flink: ValueOf,
) -> dict[Key, Counter]:
    """A job's output lines as a changelog per table, comparable with ``expected_changelog``."""
    out: dict[Key, Counter[Change]] = {key: Counter() for key in tables}
    for line in stdout.split("\n"):
        if not line.startswith("{"):
            continue
        item = json.loads(line)
        key = tables[item["table"]]
        values = tuple(
            hashable(from_flink(c, v)) for c, v in zip(columns[key], item["values"], strict=True)
        )
        out[key][(item["kind"], values)] += 1
    return out


def compare_changelogs(
    expected: dict[Key, Counter], seen: dict[Key, Counter]
) -> tuple[int, list[str]]:
    """The number of changes missing or extra, and a report: per table the kind counts wanted
    and got, and the first few differences."""
    report = []
    mismatches = 0
    for key in sorted(expected):
        want, got = expected[key], seen.get(key, Counter())
        kinds_want = Counter(dict.fromkeys(KINDS, 0))
        kinds_got = Counter(kinds_want)
        for (kind, _), n in want.items():
            kinds_want[kind] += n
        for (kind, _), n in got.items():
            kinds_got[kind] += n
        missing, extra = want - got, got - want
        mismatches += sum(missing.values()) + sum(extra.values())
        report.append(f"{key}: want {dict(kinds_want)} got {dict(kinds_got)}")
        for item in list(missing)[:3]:
            report.append(f"  missing {item}")
        for item in list(extra)[:3]:
            report.append(f"  extra   {item}")
    return mismatches, report
