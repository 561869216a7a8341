"""How one table is compared: which columns (matched by name, the expected order), their
types, the key, and the column differences found on the way."""

from __future__ import annotations

from dataclasses import dataclass, field

from tisink.check.database import Database, Location
from tisink.check.mysqltype import ColumnType, from_reflected
from tisink.check.schemas import TableTypes


@dataclass
class TablePlan:
    name: str
    actual_name: str
    expected_at: Location
    actual_at: Location
    columns: list[str]
    """Compared columns: the expected side's names, in its order."""
    actual_columns: list[str]
    """The same columns as the actual side names them."""
    types: list[ColumnType]
    key: tuple[str, ...] = ()
    """Expected key columns; empty: compared as a multiset."""
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _match_names(expected: list[str], actual: list[str]) -> dict[str, str]:
    """Expected column -> actual column: the same name, else the one name equal ignoring case
    (MySQL column names ignore case; PostgreSQL folds unquoted names to lower case)."""
    exact = set(actual)
    folded: dict[str, list[str]] = {}
    for name in actual:
        folded.setdefault(name.casefold(), []).append(name)
    matched: dict[str, str] = {}
    for name in expected:
        if name in exact:
            matched[name] = name
        elif len(candidates := folded.get(name.casefold(), [])) == 1:
            matched[name] = candidates[0]
    return matched


def plan_table(
    name: str,
    actual_name: str,
    where: tuple[Location, Location],
    databases: tuple[Database, Database],
    types: TableTypes | None,
    *,
    strict_column_order: bool = False,
) -> TablePlan:
    """Match ``name``'s columns on both sides (``where``: its location on each) and choose its
    key: the known one (``types``), else the expected side's primary key. Columns match by
    name, as sync-diff-inspector's do, so another column order is a note, or a difference
    with ``strict_column_order``."""
    expected_db, actual_db = databases
    stored = expected_db.columns(where[0])
    expected_cols = [col.name for col in stored]
    actual_cols = [col.name for col in actual_db.columns(where[1])]
    matched = _match_names(expected_cols, actual_cols)
    known = types.columns if types is not None else {}
    plan = TablePlan(
        name,
        actual_name,
        where[0],
        where[1],
        columns=[c for c in expected_cols if c in matched],
        actual_columns=[matched[c] for c in expected_cols if c in matched],
        types=[
            known.get(c.name) or from_reflected(c.sql_type) for c in stored if c.name in matched
        ],
    )
    if not matched:  # nothing to read rows by: the column lists say why
        plan.problems.append(
            f"no column in common: expected ({', '.join(expected_cols)}), "
            f"actual ({', '.join(actual_cols)})"
        )
        return plan
    if missing := [c for c in expected_cols if c not in matched]:
        plan.problems.append(f"missing on the actual side: {', '.join(missing)}")
    if extra := sorted(set(actual_cols) - set(matched.values())):
        plan.problems.append(f"only on the actual side: {', '.join(extra)}")
    in_actual_order = [c for c in actual_cols if c in plan.actual_columns]
    if in_actual_order != plan.actual_columns:
        order = (
            f"order differs: expected ({', '.join(plan.actual_columns)}), "
            f"actual ({', '.join(in_actual_order)})"
        )
        if strict_column_order:
            plan.problems.append(order)
        else:
            plan.notes.append(f"column {order}; compared by name")
    key = (types.key if types is not None else ()) or expected_db.primary_key(where[0])
    if lost := [c for c in key if c not in matched]:
        plan.notes.append(
            f"key column {', '.join(lost)} is missing on the actual side: rows compared as a "
            "multiset of the common columns"
        )
        key = ()
    plan.key = tuple(key)
    return plan
