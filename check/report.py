"""What ``tisink check`` found: per table the row counts, rows only on one side, rows that
differ, column differences, and the first differences in detail; as text and as JSON."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

MAX_VALUE_CHARS = 80
_ESCAPES = {
    ord("\\"): "\\\\",
    ord("'"): "\\'",
    ord("\n"): "\\n",
    ord("\r"): "\\r",
    ord("\t"): "\\t",
}
_ESCAPES.update({code: f"\\x{code:02x}" for code in (*range(32), 127) if code not in _ESCAPES})


def show(value: Any) -> str:
    """A value as read from a database, for a report line: NULL, text quoted (so an empty
    text is ``''``, and a line break cannot split the line), bytes in hex, numbers and dates
    bare; long values cut."""
    if value is None:
        return "NULL"
    if isinstance(value, str):
        inner = value.translate(_ESCAPES)
        if len(inner) + 2 <= MAX_VALUE_CHARS:
            return f"'{inner}'"
        return f"'{inner[: MAX_VALUE_CHARS - 5]}'..."
    if isinstance(value, bytes | bytearray | memoryview):
        text = "0x" + bytes(value).hex()
    elif isinstance(value, dt.datetime):
        text = value.isoformat(" ")
    else:
        text = str(value)
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 3] + "..."


@dataclass
class Difference:
    """One difference: a value (``column`` set), or a row only on one side (``side``)."""

    table: str
    row: str
    """``key (id=42)``, or ``row (a=1, b=x)`` for a table compared as a multiset."""
    column: str | None = None
    expected: str | None = None
    actual: str | None = None
    side: str | None = None
    """``expected`` or ``actual``: the row is only there."""

    def text(self) -> str:
        if self.column is None:
            return f"{self.table} {self.row}: only in {self.side}"
        return (
            f"{self.table} {self.row}: column {self.column}: expected {self.expected}, "
            f"actual {self.actual}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in vars(self).items() if v is not None}


@dataclass
class TableResult:
    name: str
    actual_name: str | None
    """The actual side's table (None: it has none)."""
    compared_by: str = "key"
    """``key`` (the columns in ``key``), ``multiset`` (no key) or ``none`` (rows not compared:
    the table is missing, or has no column in common)."""
    key: tuple[str, ...] = ()
    expected_rows: int = 0
    actual_rows: int | None = 0
    only_expected: int = 0
    only_actual: int = 0
    differing: int = 0
    columns: list[str] = field(default_factory=list)
    """Column differences, each a sentence."""
    notes: list[str] = field(default_factory=list)

    @property
    def equal(self) -> bool:
        return (
            self.actual_name is not None
            and not self.columns
            and self.only_expected == self.only_actual == self.differing == 0
        )

    def text(self) -> str:
        if self.actual_name is None:
            return f"{self.name}: missing on the actual side ({self.expected_rows} rows expected)"
        if self.equal:
            return f"{self.name}: equal ({self.expected_rows} rows)"
        if self.compared_by == "none":
            return (
                f"{self.name}: different: rows not compared ({self.expected_rows} expected, "
                f"{self.actual_rows} actual)"
            )
        by = f"by key ({', '.join(self.key)})" if self.key else "as a multiset"
        return (
            f"{self.name}: different: {self.expected_rows} rows expected, {self.actual_rows} "
            f"actual; {by}: {self.only_expected} only expected, {self.only_actual} only "
            f"actual, {self.differing} differing"
        )

    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self), key=list(self.key), equal=self.equal)


@dataclass
class CheckReport:
    expected: str
    actual: str
    max_differences: int
    tables: list[TableResult] = field(default_factory=list)
    extra_tables: list[str] = field(default_factory=list)
    """Tables only on the actual side (in the schemas the expected side has)."""
    differences: list[Difference] = field(default_factory=list)
    """The first ``max_differences`` differences."""
    total_differences: int = 0

    @property
    def ok(self) -> bool:
        return not self.extra_tables and all(t.equal for t in self.tables)

    def add(self, differences: list[Difference], total: int) -> None:
        """Count ``total`` differences of a table, keep the first of ``differences`` while
        fewer than ``max_differences`` are kept."""
        self.total_differences += total
        room = self.max_differences - len(self.differences)
        self.differences.extend(differences[: max(room, 0)])

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "expected": self.expected,
            "actual": self.actual,
            "tables": [t.to_dict() for t in self.tables],
            "extra_tables": self.extra_tables,
            "total_differences": self.total_differences,
            "differences": [d.to_dict() for d in self.differences],
        }


def render_text(report: CheckReport) -> str:
    lines = [f"expected: {report.expected}", f"actual:   {report.actual}"]
    for table in report.tables:
        lines.append(table.text())
        lines.extend(f"  columns: {problem}" for problem in table.columns)
        lines.extend(f"  note: {note}" for note in table.notes)
    lines.extend(f"{name}: only on the actual side" for name in report.extra_tables)
    if report.differences:
        shown = len(report.differences)
        lines.append(f"first {shown} of {report.total_differences} differences:")
        lines.extend(f"  {d.text()}" for d in report.differences)
    rows = sum(t.expected_rows for t in report.tables)
    if report.ok:
        lines.append(f"EQUAL: {len(report.tables)} tables, {rows} rows")
    else:
        differ = sum(not t.equal for t in report.tables) + len(report.extra_tables)
        total = len(report.tables) + len(report.extra_tables)
        lines.append(f"DIFFERENT: {differ} of {total} tables differ")
    return "\n".join(lines)


def write_json(report: CheckReport, path: Path) -> None:
    """``--summary-json``: the report's content, machine-readable."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(report.to_dict(), option=orjson.OPT_INDENT_2))
