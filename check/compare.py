"""One table compared as a merge of both sides in key order: rows only expected, only
actual, and rows whose values differ after normalisation; without a key, whole normalised
rows are matched as a multiset.

Only the key is normalised up front; a row pair whose values are equal as read needs no more
work, and otherwise only the columns that differ as read are normalised. Each side streams in
the server's order; if that is not the order of the normalised keys, the table is compared
again with both sides sorted here (``ordering``), so memory stays bounded either way."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from tisink.check.database import Database, Location
from tisink.check.errors import NotUTF8Error
from tisink.check.normalise import Normalise, binary_equal, normaliser
from tisink.check.ordering import Item, OutOfOrder, in_server_order, sortable, sorted_items
from tisink.check.plan import TablePlan
from tisink.check.report import CheckReport, Difference, TableResult, show
from tisink.model.mysqltypes import TypeFamily

log = logging.getLogger(__name__)


def _preparer(plan: TablePlan, converters: list[Normalise]) -> Callable[[Sequence[Any]], Item]:
    """Row as read -> (sort key, row): the key columns normalised, or the whole row."""
    positions = [plan.columns.index(c) for c in plan.key] or list(range(len(plan.columns)))
    pairs = [(i, converters[i]) for i in positions]

    def prepare(row: Sequence[Any]) -> Item:
        # a plain tuple: compared and pickled much faster than SQLAlchemy's Row
        values = tuple(row)
        return tuple(
            sortable(None if values[i] is None else f(values[i])) for i, f in pairs
        ), values

    if len(pairs) == 1:
        ((first, convert),) = pairs

        def prepare_one(row: Sequence[Any]) -> Item:
            """The common single-column key, without a generator per row."""
            values = tuple(row)
            value = values[first]
            return (sortable(None if value is None else convert(value)),), values

        return prepare_one
    return prepare


class _Merge:
    """The comparison of one table, collecting its differences until it is done."""

    def __init__(self, plan: TablePlan, report: CheckReport) -> None:
        self.plan, self.limit = plan, report.max_differences
        self.converters = [normaliser(t) for t in plan.types]
        self.binary = [t.family is TypeFamily.BINARY for t in plan.types]
        self.result = TableResult(plan.name, plan.actual_name, "multiset", plan.key)
        if plan.key:
            self.result.compared_by = "key"
        self.result.columns, self.result.notes = list(plan.problems), list(plan.notes)
        self.found: list[Difference] = []
        self.total = 0

    def note(self, difference: Difference) -> None:
        self.total += 1
        if len(self.found) < self.limit:
            self.found.append(difference)

    def label(self, row: Sequence[Any]) -> str:
        columns = self.plan.columns
        if self.plan.key:
            shown = (f"{c}={show(row[columns.index(c)])}" for c in self.plan.key)
            return f"key ({', '.join(shown)})"
        return f"row ({', '.join(f'{c}={show(v)}' for c, v in zip(columns, row, strict=True))})"

    def run(self, expected: Iterator[Item], actual: Iterator[Item]) -> None:
        result, e, a = self.result, next(expected, None), next(actual, None)
        while e is not None or a is not None:
            if e is not None and (a is None or e[0] < a[0]):
                result.only_expected += 1
                self.note(Difference(self.plan.name, self.label(e[1]), side="expected"))
                result.expected_rows, e = result.expected_rows + 1, next(expected, None)
            elif a is not None and (e is None or a[0] < e[0]):
                result.only_actual += 1
                self.note(Difference(self.plan.name, self.label(a[1]), side="actual"))
                result.actual_rows, a = (result.actual_rows or 0) + 1, next(actual, None)
            elif e is not None and a is not None:  # the same key
                if e[1] != a[1] and self.values_differ(e[1], a[1]):
                    result.differing += 1
                result.expected_rows, e = result.expected_rows + 1, next(expected, None)
                result.actual_rows, a = (result.actual_rows or 0) + 1, next(actual, None)

    def values_differ(self, expected: Sequence[Any], actual: Sequence[Any]) -> bool:
        """Note each column whose values differ once normalised."""
        label: str | None = None
        for i, (ev, av) in enumerate(zip(expected, actual, strict=True)):
            if ev == av:
                continue
            if ev is not None and av is not None:
                convert = self.converters[i]
                if convert(ev) == convert(av) or (self.binary[i] and binary_equal(ev, av)):
                    continue
            label = label or self.label(expected)
            column = self.plan.columns[i]
            self.note(Difference(self.plan.name, label, column, show(ev), show(av)))
        return label is not None


def compare_table(
    plan: TablePlan, databases: tuple[Database, Database], report: CheckReport, chunk_rows: int
) -> TableResult:
    """Compare the rows of ``plan``'s table; the report keeps its first differences."""
    if not plan.columns:
        return _counted(plan, databases)
    try:
        merge = _compare_in_order(plan, databases, report, chunk_rows, bad_text=False)
    except NotUTF8Error:
        log.info("%s: SQLite text that is not UTF-8: reading it as such", plan.name)
        merge = _compare_in_order(plan, databases, report, chunk_rows, bad_text=True)
    report.add(merge.found, merge.total)
    return merge.result


def _compare_in_order(
    plan: TablePlan,
    databases: tuple[Database, Database],
    report: CheckReport,
    chunk_rows: int,
    *,
    bad_text: bool,
) -> _Merge:
    """The rows in the server's order, or, should that not be the keys' order, sorted here."""
    try:
        return _compare(plan, databases, report, chunk_rows, sort_here=False, bad_text=bad_text)
    except OutOfOrder:
        log.info("%s: the server's order is not the keys' order: sorting here", plan.name)
        return _compare(plan, databases, report, chunk_rows, sort_here=True, bad_text=bad_text)


def _counted(plan: TablePlan, databases: tuple[Database, Database]) -> TableResult:
    """A table with no column in common: its rows cannot be matched, only counted."""
    result = TableResult(plan.name, plan.actual_name, "none", columns=list(plan.problems))
    result.notes = list(plan.notes)
    result.expected_rows = databases[0].count_rows(plan.expected_at)
    result.actual_rows = databases[1].count_rows(plan.actual_at)
    return result


def _compare(
    plan: TablePlan,
    databases: tuple[Database, Database],
    report: CheckReport,
    chunk_rows: int,
    *,
    sort_here: bool,
    bad_text: bool,
) -> _Merge:
    """One pass over both sides; their cursors are closed when it ends, however it ends."""
    merge = _Merge(plan, report)
    prepare = _preparer(plan, merge.converters)
    sides = (
        (databases[0], plan.expected_at, plan.columns),
        (databases[1], plan.actual_at, plan.actual_columns),
    )
    with contextlib.ExitStack() as stack:
        streams = []
        for side in sides:
            chunks = _chunks(*side, plan, chunk_rows, bad_text)
            items = (
                sorted_items(chunks, prepare, chunk_rows)
                if sort_here
                else in_server_order(chunks, prepare)
            )
            streams.append(stack.enter_context(contextlib.closing(items)))
        merge.run(*streams)
    return merge


def _chunks(
    db: Database,
    where: Location,
    columns: list[str],
    plan: TablePlan,
    chunk_rows: int,
    bad_text: bool,
) -> Iterator[Sequence[Sequence[Any]]]:
    order = [columns[plan.columns.index(c)] for c in plan.key] or columns
    json = frozenset(
        name for name, t in zip(columns, plan.types, strict=True) if t.family is TypeFamily.JSON
    )
    return db.stream(where, columns, order, chunk_rows, json, bad_text=bad_text)
