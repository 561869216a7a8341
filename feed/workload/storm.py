"""DDL storms: DDLs at a rate, drawn among kinds, on random tables (``[ddl_storm]``).

A storm stresses schema-version handling: every ``60000 / per_minute`` ms of commit time the
schedule draws a kind and a live table and makes a DDL that fits the table as it is then, so
every later row is still valid. Added columns are nullable (old rows read NULL) and named
``storm_cN``; only those are dropped or widened again; indexes go on plain columns; the
database kinds have no table (``QUERY`` records: CREATE / DROP DATABASE ``storm_dbN``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NoReturn

from tisink.feed.workload.specs import Scenario, StormSpec

Fail = Callable[..., NoReturn]
STORM_KINDS = (
    "add_column",
    "drop_column",
    "modify_column",
    "add_index",
    "drop_index",
    "truncate",
    "create_database",
    "drop_database",
)
_STORM_KEYS = {"per_minute", "kinds", "tables"}


def parse_storm(obj: Any, scenario: Scenario, fail: Fail) -> StormSpec:
    """``[ddl_storm]``: ``per_minute``, ``kinds = { add_column = 2, ... }`` (default: every
    kind once), ``tables = [names or templates]`` (default: all)."""
    if not isinstance(obj, dict):
        fail("[ddl_storm] must be a table")
    unknown = sorted(set(obj) - _STORM_KEYS)
    if unknown:
        fail(f"unknown key {unknown[0]!r} in [ddl_storm]")
    per_minute = obj.get("per_minute", 60)
    if not _number(per_minute) or not 0 < per_minute < math.inf:
        fail(f"ddl_storm per_minute must be a number > 0, got {per_minute!r}")
    weights = obj.get("kinds", dict.fromkeys(STORM_KINDS, 1))
    if not isinstance(weights, dict) or not weights:
        fail("ddl_storm kinds must be a table of kind = weight")
    running, kinds, cumulative = 0.0, [], []
    for kind, weight in weights.items():
        if kind not in STORM_KINDS or not _number(weight) or not 0 <= weight < math.inf:
            fail(
                f"ddl_storm kind {kind!r} = {weight!r}: kinds are {', '.join(STORM_KINDS)}, "
                "weights numbers >= 0"
            )
        running += float(weight)
        kinds.append(kind)
        cumulative.append(running)
    if running <= 0:
        fail("ddl_storm kinds need some weight")
    names = obj.get("tables")
    if names is not None and not isinstance(names, list):
        fail(f"ddl_storm tables must be a list of table names, got {names!r}")
    if names is None:
        tables = tuple(range(len(scenario.tables)))
    else:
        tables = tuple(i for name in names for i in scenario.table_group(str(name)))
    return StormSpec(float(per_minute), tuple(kinds), tuple(cumulative), tables)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
