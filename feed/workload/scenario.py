"""Scenario files: the TOML that describes a workload (format in feed/workload/README.md).

``parse_scenario`` checks every section and key (an unknown key is an error, so a typo never
silently falls back to a default) and returns a frozen Scenario; ``loader`` finds the text (a
built-in name, a file, or a SQL dump that ``sql_schema`` turns into one).
"""

from __future__ import annotations

import tomllib
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from tisink.feed.rate_profile import RateProfile, RateProfileError, parse_rate_profile
from tisink.feed.workload.errors import ScenarioError
from tisink.feed.workload.specs import ColumnSpec, DDLSpec, Oversized, Scenario, TableSpec
from tisink.feed.workload.storm import parse_storm
from tisink.feed.workload.table_parser import TableParser
from tisink.feed.workload.transactions import parse_transaction
from tisink.model.table import IndexInfo
from tisink.model.tso import compose_ts, too_late

__all__ = [
    "ACTIONS",
    "ColumnSpec",
    "DDLSpec",
    "Oversized",
    "Scenario",
    "TableSpec",
    "parse_scenario",
    "read_scenario_text",
    "scenario_from_doc",
]

ACTIONS = (
    "add_column",
    "drop_column",
    "modify_column",
    "add_index",
    "drop_index",
    "rename",
    "truncate",
    "create_table",
    "drop_table",
)
_TOP_KEYS = {"name", "description", "rows", "duration_s", "rate", "start", "txn_size", "mix"}
_TOP_KEYS |= {"null_ratio", "keys", "zipf_s", "tables", "ddl"}
_TOP_KEYS |= {"transactions", "ddl_storm", "resolved_every_ms", "rate_profile"}
_DDL_KEYS = {"at", "table", "action", "column", "name", "index", "to"}


def read_scenario_text(path: Path, source: str) -> str:
    """The text of a scenario or dump file; one that is not UTF-8 is refused naming the
    first bad byte (its offset and line), never decoded by a guess."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise ScenarioError(f"cannot read the file: {err.strerror}", file=source) from None
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise ScenarioError(
            f"not UTF-8: byte 0x{data[err.start]:02x} at byte offset {err.start} "
            "(convert the file to UTF-8, e.g. with iconv)",
            file=source,
            line=line,
        ) from None


def parse_scenario(text: str, source: str) -> Scenario:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ScenarioError(f"invalid TOML: {err}", file=source) from None
    return _Parser(source).scenario(doc)


def scenario_from_doc(doc: dict[str, Any], source: str) -> Scenario:
    """A scenario from its parsed document (TOML's, or one built from SQL)."""
    return _Parser(source).scenario(doc)


class _Parser(TableParser):
    """The scenario document: top-level keys, tables, DDLs, transactions and the storm."""

    def scenario(self, doc: dict[str, Any]) -> Scenario:
        doc = self.keys(doc, _TOP_KEYS, "the scenario")
        rate = self.number(doc.get("rate", 1000), "rate", "a number > 0", _positive)
        if "rows" in doc:
            rows = self.whole(doc["rows"], "rows", minimum=1)
        else:
            duration = self.number(
                doc.get("duration_s", 10), "duration_s", "a number > 0", _positive
            )
            rows = int(duration * rate)
            if rows < 1:
                self.fail(f"duration_s = {duration:g} at rate {rate:g}/s gives no rows")
        if "null_ratio" in doc:
            self.ratio(doc["null_ratio"], "null_ratio")
        shared = ("txn_size", "mix", "null_ratio", "keys", "zipf_s")
        defaults: dict[str, Any] = {key: doc[key] for key in shared if key in doc}
        listed = self.entries(doc.get("tables", []), "tables")
        tables = [made for t in listed for made in self.tables(t, defaults)]
        if not tables:
            self.fail("a scenario needs at least one [[tables]] entry")
        names = [t.qualified_name for t in tables]
        if len(set(names)) != len(names):
            self.fail("table names repeat")
        scenario = Scenario(
            name=str(doc.get("name", Path(self.source).stem)),
            description=str(doc.get("description", "")),
            rows=int(rows),
            rate=rate,
            start_ms=self.start_ms(doc.get("start", "2024-01-01T00:00:00Z")),
            tables=tuple(tables),
            ddls=(),
            source=self.source,
            resolved_every_ms=self.count(doc.get("resolved_every_ms", 0), "resolved_every_ms"),
            profile=self.profile(doc.get("rate_profile")),
        )
        ddls = [self.ddl(d, scenario) for d in self.entries(doc.get("ddl", []), "ddl")]
        deferred = {d.table for d in ddls if d.action == "create_table"}
        tables = [replace(t, deferred=i in deferred) for i, t in enumerate(tables)]
        scenario = replace(scenario, tables=tuple(tables), ddls=tuple(ddls))
        listed = self.entries(doc.get("transactions", []), "transactions")
        txns = tuple(parse_transaction(t, scenario, self.fail) for t in listed)
        storm = doc.get("ddl_storm")
        scenario = replace(
            scenario,
            transactions=txns,
            storm=None if storm is None else parse_storm(storm, scenario, self.fail),
        )
        self.check_weights(scenario)
        if (problem := scenario.size_problem(scenario.rows)) is not None:
            self.fail(problem)
        return scenario

    def check_weights(self, scenario: Scenario) -> None:
        weights = [t.weight for t in scenario.tables] + [t.weight for t in scenario.transactions]
        if min(weights) < 0 or sum(weights) <= 0:
            self.fail("weights of tables and transactions must be >= 0, and some above 0")
        for table in scenario.tables:
            if table.conserved is not None and table.weight > 0:
                self.fail(
                    "a table with a conserved column is written by [[transactions]] only "
                    "(weight = 0), so every transfer is whole",
                    table=table.qualified_name,
                )

    def profile(self, value: Any) -> RateProfile | None:
        if value is None:
            return None
        try:
            return parse_rate_profile(str(value))
        except RateProfileError as err:
            self.fail(f"rate_profile: {err}")

    def start_ms(self, value: Any) -> int:
        try:
            moment = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
        except ValueError:
            self.fail(f"start {value!r} is not an ISO 8601 time")
        if moment.tzinfo is None:
            self.fail(f"start {value!r} needs a time zone (e.g. Z)")
        ms = int(moment.timestamp() * 1000)
        if (late := too_late(compose_ts(ms))) is not None:
            self.fail(f"start {value!r}: {late}")
        return ms

    def ddl(self, obj: Any, scenario: Scenario) -> DDLSpec:
        obj = self.keys(obj, _DDL_KEYS, "a [[ddl]] entry")
        action = str(obj.get("action", ""))
        if action not in ACTIONS:
            self.fail(f"unknown DDL action {action!r} (expected one of {', '.join(ACTIONS)})")
        table = scenario.table_index(str(obj.get("table", "")))
        qualified = scenario.tables[table].qualified_name
        at = self.number(
            obj.get("at", 0.5), "at", "a fraction of the rows in 0..1", _fraction, qualified
        )
        column = None
        if action in ("add_column", "modify_column"):
            column = self.column(obj.get("column"), qualified, 0.1)
            if (
                action == "add_column"
                and not column.column.nullable
                and column.column.default is None
            ):
                self.fail(
                    "a NOT NULL column added later needs a default", qualified, column.column.name
                )
        index = None
        if action == "add_index":
            spec = self.keys(obj.get("index"), {"name", "columns"}, f"the index of {qualified}")
            columns = self.names(spec.get("columns", []), "index columns", qualified)
            index = IndexInfo(str(spec.get("name")), columns)
        name = str(obj.get("name", ""))
        if action in ("drop_column", "drop_index") and not name:
            self.fail(f"{action} needs name", table=qualified)
        to = str(obj.get("to", ""))
        if action == "rename" and (not to or not all(p.strip() for p in to.split("."))):
            self.fail(f"rename needs to = table or schema.table, got {to!r}", table=qualified)
        return DDLSpec(at, table, action, column, name, index, to)


def _fraction(value: float) -> bool:
    return 0.0 <= value <= 1.0


def _positive(value: float) -> bool:
    return value > 0.0
