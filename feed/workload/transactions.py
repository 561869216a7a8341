"""Transactions that span tables: ``[[transactions]]`` entries of a scenario.

Each entry names the tables that commit together and how many rows each writes; its ``weight``
competes with the tables' own weights for the schedule's transactions. A part may name a
template (``sbtest``): each transaction then picks one of its tables by their weights (the
template's spread). The parts' tables never overlap. Every part shares the
transaction's commitTs and startTs, which is what a consumer regroups by.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

from tisink.feed.workload.specs import Scenario, TxnPart, TxnSpec

Fail = Callable[..., NoReturn]
_TXN_KEYS = {"name", "weight", "tables", "rows"}


def parse_transaction(obj: Any, scenario: Scenario, fail: Fail) -> TxnSpec:
    """A ``[[transactions]]`` entry: ``tables = [...]``, ``rows = [n or [low, high], ...]``
    (one per table, default 1 each), ``weight`` (default 1)."""
    if not isinstance(obj, dict):
        fail("a [[transactions]] entry must be a table")
    unknown = sorted(set(obj) - _TXN_KEYS)
    if unknown:
        fail(f"unknown key {unknown[0]!r} in a [[transactions]] entry")
    names = obj.get("tables")
    if not isinstance(names, list) or len(names) < 2:
        fail("a [[transactions]] entry needs tables = [two or more table names]")
    rows = obj.get("rows", [1] * len(names))
    if not isinstance(rows, list) or len(rows) != len(names):
        fail(f"rows of transaction {obj.get('name', names)!r} needs one entry per table")
    parts = []
    seen: set[int] = set()
    for name, count in zip(names, rows, strict=True):
        group = scenario.table_group(str(name))
        if seen & set(group):
            fail(f"transaction tables overlap at {name!r}: a table commits once per transaction")
        seen |= set(group)
        low, high = (count, count) if isinstance(count, int) else tuple(count)
        if not 1 <= low <= high:
            fail(f"rows of {name!r} in a transaction must be n >= 1 or [low, high]")
        running, cumulative = 0.0, []
        for table in group:
            running += scenario.tables[table].weight or 1.0
            cumulative.append(running)
        parts.append(TxnPart(tuple(group), tuple(cumulative), (int(low), int(high))))
    weight = float(obj.get("weight", 1.0))
    return TxnSpec(str(obj.get("name", "+".join(map(str, names)))), weight, tuple(parts))
