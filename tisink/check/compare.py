"""One table compared as a merge of both sides in key order: rows only expected, only
actual, and rows whose values differ after normalisation; without a key, whole normalised
rows are matched as a multiset. Each side is read in chunks and ordered with bounded memory
(``ordering``), so a table of any size is compared in one pass."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from tisink.check.database import Database, Location
from tisink.check.normalise import binary_equal, normaliser
from tisink.check.ordering import Item, sortable, sorted_items
from tisink.check.plan import TablePlan
from tisink.check.report import CheckReport, Difference, TableResult, show
from tisink.model.mysqltypes import TypeFamily


def _preparer(plan: TablePlan) -> Callable[[Sequence[Any]], Item]:
    """Row as read -> (sort key, normalised values, row): the key columns' values, or the
    whole row for a multiset."""
    converters = [normaliser(t) for t in plan.types]
    positions = [plan.columns.index(c) for c in plan.key] or range(len(plan.columns))
    pairs = list(zip(converters, range(len(converters)), strict=True))

    def prepare(row: Sequence[Any]) -> Item:
        values = tuple(None if row[i] is None else convert(row[i]) for convert, i in pairs)
        return tuple(sortable(values[i]) for i in positions), values, tuple(row)

    return prepare


def _items(
    db: Database, where: Location, columns: list[str], plan: TablePlan, chunk_rows: int
) -> Iterator[Item]:
    order = [columns[plan.columns.index(c)] for c in plan.key] or columns
    chunks = db.stream(where, columns, order, chunk_rows)
    return sorted_items(chunks, _preparer(plan), chunk_rows)


def _label(plan: TablePlan, row: Sequence[Any]) -> str:
    if plan.key:
        shown = (f"{c}={show(row[plan.columns.index(c)])}" for c in plan.key)
        return f"key ({', '.join(shown)})"
    return f"row ({', '.join(f'{c}={show(v)}' for c, v in zip(plan.columns, row, strict=True))})"


def compare_table(
    plan: TablePlan, databases: tuple[Database, Database], report: CheckReport, chunk_rows: int
) -> TableResult:
    """Compare the rows of ``plan``'s table; differences beyond the report's limit are
    counted, not kept."""
    result = TableResult(plan.name, plan.actual_name, "key" if plan.key else "multiset", plan.key)
    result.columns, result.notes = list(plan.problems), list(plan.notes)
    expected = _items(databases[0], plan.expected_at, plan.columns, plan, chunk_rows)
    actual = _items(databases[1], plan.actual_at, plan.actual_columns, plan, chunk_rows)
    binary = [t.family is TypeFamily.BINARY for t in plan.types]
    e, a = next(expected, None), next(actual, None)
    expected_rows = actual_rows = 0
    while e is not None or a is not None:
        if e is not None and (a is None or e[0] < a[0]):
            result.only_expected += 1
            report.note(Difference(plan.name, _label(plan, e[2]), side="expected"))
            expected_rows, e = expected_rows + 1, next(expected, None)
        elif a is not None and (e is None or a[0] < e[0]):
            result.only_actual += 1
            report.note(Difference(plan.name, _label(plan, a[2]), side="actual"))
            actual_rows, a = actual_rows + 1, next(actual, None)
        elif e is not None and a is not None:  # the same key
            if e[1] != a[1] and _note_values(plan, e, a, binary, report):
                result.differing += 1
            expected_rows, e = expected_rows + 1, next(expected, None)
            actual_rows, a = actual_rows + 1, next(actual, None)
    result.expected_rows, result.actual_rows = expected_rows, actual_rows
    return result


def _note_values(
    plan: TablePlan, e: Item, a: Item, binary: list[bool], report: CheckReport
) -> bool:
    """Note each column whose values differ; False when all turn out equal (binary text)."""
    found = False
    label = _label(plan, e[2])
    for i, column in enumerate(plan.columns):
        if e[1][i] == a[1][i] or (binary[i] and binary_equal(e[2][i], a[2][i])):
            continue
        found = True
        report.note(Difference(plan.name, label, column, show(e[2][i]), show(a[2][i])))
    return found
