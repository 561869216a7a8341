"""Scenario files: the TOML that describes a workload (format in feed/workload/README.md).

``load_scenario`` takes a built-in name (``demo``, ``all-types``) or a path, checks every
section and key (an unknown key is an error, so a typo never silently falls back to a
default) and returns a frozen Scenario.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, replace
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any, NoReturn

from tisink.feed.rate_profile import RateProfile, RateProfileError, parse_rate_profile
from tisink.feed.workload.errors import ScenarioError
from tisink.feed.workload.storm import StormSpec, parse_storm
from tisink.feed.workload.transactions import TxnSpec, parse_transaction
from tisink.feed.workload.types import parse_column_type
from tisink.feed.workload.values import KEY_FAMILIES
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo, IndexInfo
from tisink.model.tso import compose_ts, too_late

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
_TABLE_KEYS = {"schema", "name", "weight", "keys", "zipf_s", "mix", "txn_size", "null_ratio"}
_TABLE_KEYS |= {"columns", "primary", "indexes", "oversized"}
_TABLE_KEYS |= {"count", "spread", "spread_s", "key_updates", "preload"}
_COLUMN_KEYS = {"name", "type", "nullable", "default", "null_ratio", "size", "generated"}
_COLUMN_KEYS |= {"conserved"}
_DDL_KEYS = {"at", "table", "action", "column", "name", "index", "to"}
_AMOUNT_FAMILIES = (TypeFamily.INT, TypeFamily.BIGINT, TypeFamily.DECIMAL)


@dataclass(frozen=True)
class ColumnSpec:
    column: ColumnInfo
    size: tuple[int, int] | None = None
    null_ratio: float = 0.1


@dataclass(frozen=True)
class Oversized:
    """Every ``every``-th insert of the table carries a ``nbytes`` value in ``column``."""

    every: int
    nbytes: int
    column: str


@dataclass(frozen=True)
class TableSpec:
    schema: str
    name: str
    columns: tuple[ColumnSpec, ...]
    indexes: tuple[IndexInfo, ...]
    weight: float = 1.0
    keys: str = "uniform"
    zipf_s: float = 1.1
    mix: tuple[float, float, float] = (0.6, 0.3, 0.1)
    txn_size: tuple[int, int] = (1, 5)
    oversized: Oversized | None = None
    deferred: bool = False
    """Created by a ``create_table`` DDL of the schedule instead of at the start."""
    key_updates: float = 0.0
    """Share of the UPDATEs that give the row new key values (primary and unique keys)."""
    preload: int = 0
    """Rows inserted right after the table's CREATE, before the workload's rows."""
    conserved: str | None = None
    """A numeric column whose sum UPDATEs keep: they move amounts between pairs of rows."""
    template: str | None = None
    """The ``[[tables]]`` name this table was made from by ``count = N``."""

    @property
    def qualified_name(self) -> str:
        return f"{self.schema}.{self.name}"


@dataclass(frozen=True)
class DDLSpec:
    at: float
    table: int
    """Index of the table in Scenario.tables."""
    action: str
    column: ColumnSpec | None = None
    name: str = ""
    index: IndexInfo | None = None
    to: str = ""


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    rows: int
    rate: float
    start_ms: int
    tables: tuple[TableSpec, ...]
    ddls: tuple[DDLSpec, ...]
    source: str
    transactions: tuple[TxnSpec, ...] = ()
    storm: StormSpec | None = None
    resolved_every_ms: int = 0
    """Commit-time milliseconds between ``resolved`` records (0: none)."""
    profile: RateProfile | None = None
    """Shapes the commit-time spacing instead of the steady ``rate``."""

    def table_index(self, name: str) -> int:
        """The index of the table called ``name`` (``table`` or ``schema.table``)."""
        for position, spec in enumerate(self.tables):
            if name in (spec.name, spec.qualified_name):
                return position
        raise ScenarioError(f"no table {name!r} in the scenario", file=self.source)

    def table_group(self, name: str) -> list[int]:
        """The tables a template name made (``sbtest`` gives sbtest1..N), or the one table
        called ``name``."""
        made = [i for i, t in enumerate(self.tables) if name in _template_names(t)]
        return made or [self.table_index(name)]


def _template_names(table: TableSpec) -> tuple[str, ...]:
    if table.template is None:
        return ()
    return (table.template, f"{table.schema}.{table.template}")


def builtin_scenarios() -> list[str]:
    folder = resources.files("tisink.feed.workload") / "scenarios"
    return sorted(
        p.name.removesuffix(".toml") for p in folder.iterdir() if p.name.endswith(".toml")
    )


def load_scenario(name_or_path: str | os.PathLike[str]) -> Scenario:
    """A built-in scenario by name, the scenario file at a path, or the default workload
    over the tables of a ``.sql`` dump (``sql_schema``)."""
    text_name = str(name_or_path)
    if text_name in builtin_scenarios():
        resource = resources.files("tisink.feed.workload") / "scenarios" / f"{text_name}.toml"
        return parse_scenario(resource.read_text(encoding="utf-8"), f"{text_name}.toml")
    path = Path(name_or_path)
    if not path.is_file():
        known = ", ".join(builtin_scenarios())
        raise ScenarioError(f"no scenario file {path} and no built-in {text_name!r} ({known})")
    if path.suffix.lower() == ".sql":
        from tisink.feed.workload.sql_schema import load_sql_scenario

        return load_sql_scenario(path)
    return parse_scenario(path.read_text(encoding="utf-8"), str(path))


def parse_scenario(text: str, source: str) -> Scenario:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ScenarioError(f"invalid TOML: {err}", file=source) from None
    return _Parser(source).scenario(doc)


def scenario_from_doc(doc: dict[str, Any], source: str) -> Scenario:
    """A scenario from its parsed document (TOML's, or one built from SQL)."""
    return _Parser(source).scenario(doc)


class _Parser:
    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, reason: str, table: str | None = None, column: str | None = None) -> NoReturn:
        raise ScenarioError(reason, file=self.source, table=table, column=column)

    def keys(self, obj: Any, allowed: set[str], where: str) -> dict[str, Any]:
        if not isinstance(obj, dict):
            self.fail(f"{where} must be a table")
        unknown = sorted(set(obj) - allowed)
        if unknown:
            self.fail(f"unknown key {unknown[0]!r} in {where}")
        return obj

    def scenario(self, doc: dict[str, Any]) -> Scenario:
        doc = self.keys(doc, _TOP_KEYS, "the scenario")
        rate = float(doc.get("rate", 1000))
        if rate <= 0:
            self.fail(f"rate must be positive, got {rate}")
        rows = doc.get("rows")
        if rows is None:
            rows = int(float(doc.get("duration_s", 10)) * rate)
        shared = ("txn_size", "mix", "null_ratio", "keys", "zipf_s")
        defaults: dict[str, Any] = {key: doc[key] for key in shared if key in doc}
        tables = [made for t in doc.get("tables", []) for made in self.tables(t, defaults)]
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
        ddls = [self.ddl(d, scenario) for d in doc.get("ddl", [])]
        deferred = {d.table for d in ddls if d.action == "create_table"}
        tables = [replace(t, deferred=i in deferred) for i, t in enumerate(tables)]
        scenario = replace(scenario, tables=tuple(tables), ddls=tuple(ddls))
        txns = tuple(parse_transaction(t, scenario, self.fail) for t in doc.get("transactions", []))
        storm = doc.get("ddl_storm")
        scenario = replace(
            scenario,
            transactions=txns,
            storm=None if storm is None else parse_storm(storm, scenario, self.fail),
        )
        self.check_weights(scenario)
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

    def count(self, value: Any, key: str, table: str | None = None) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            self.fail(f"{key} must be a whole number >= 0, got {value!r}", table=table)
        return value

    def profile(self, value: Any) -> RateProfile | None:
        if value is None:
            return None
        try:
            return parse_rate_profile(str(value))
        except RateProfileError as err:
            self.fail(f"rate_profile: {err}")

    def tables(self, obj: Any, defaults: dict[str, Any]) -> list[TableSpec]:
        """One table, or ``count`` of them from a template (``sbtest`` -> sbtest1..N), the
        template's weight spread over them uniformly or by a zipf law."""
        spec = self.table(obj, defaults)
        count = self.count(obj.get("count", 1), "count", spec.qualified_name)
        if "count" not in obj:
            if "spread" in obj or "spread_s" in obj:
                self.fail("spread needs count", table=spec.qualified_name)
            return [spec]
        spread = str(obj.get("spread", "uniform"))
        if spread not in ("uniform", "zipf") or count < 1:
            self.fail(f"count >= 1 and spread uniform or zipf, got {count}, {spread!r}")
        s = float(obj.get("spread_s", 1.1)) if spread == "zipf" else 0.0
        shares = [1 / (i**s) for i in range(1, count + 1)]
        total = sum(shares)
        return [
            replace(
                spec, name=f"{spec.name}{i}", weight=spec.weight * share / total, template=spec.name
            )
            for i, share in enumerate(shares, start=1)
        ]

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

    def table(self, obj: Any, defaults: dict[str, Any]) -> TableSpec:
        obj = self.keys(obj, _TABLE_KEYS, "a [[tables]] entry")
        merged = {**defaults, **obj}
        if "name" not in obj:
            self.fail("a [[tables]] entry needs a name")
        schema, name = str(obj.get("schema", "test")), str(obj["name"])
        qualified = f"{schema}.{name}"
        if not schema.strip() or not name.strip():
            self.fail(f"a [[tables]] entry needs a schema and a name, got {qualified!r}")
        null_ratio = float(merged.get("null_ratio", 0.1))
        preload = self.count(obj.get("preload", 0), "preload", qualified)
        columns = tuple(self.column(c, qualified, null_ratio) for c in obj.get("columns", []))
        if not columns:
            self.fail("a table needs columns", table=qualified)
        by_name = {c.column.name: c.column for c in columns}
        if len(by_name) != len(columns):
            self.fail("column names repeat", table=qualified)
        indexes = []
        primary = obj.get("primary", [])
        if primary:
            indexes.append(IndexInfo("primary", tuple(primary), unique=True, primary=True))
        for index in obj.get("indexes", []):
            index = self.keys(index, {"name", "columns", "unique"}, f"an index of {qualified}")
            indexes.append(
                IndexInfo(str(index["name"]), tuple(index["columns"]), bool(index.get("unique")))
            )
        columns = self.key_columns(columns, indexes, qualified)
        conserved = self.conserved(obj, columns, indexes, qualified)
        keys = str(merged.get("keys", "uniform"))
        if keys not in ("uniform", "zipf"):
            self.fail(f"keys must be uniform or zipf, got {keys!r}", table=qualified)
        return TableSpec(
            schema=schema,
            name=name,
            columns=columns,
            indexes=tuple(indexes),
            weight=float(obj.get("weight", 1.0)),
            keys=keys,
            zipf_s=float(merged.get("zipf_s", 1.1)),
            mix=self.mix(merged.get("mix"), qualified, preload),
            txn_size=self.pair(merged.get("txn_size", [1, 5]), "txn_size", qualified, minimum=1),
            oversized=self.oversized(obj.get("oversized"), by_name, qualified),
            key_updates=self.key_updates(merged.get("key_updates", 0.0), indexes, qualified),
            preload=preload,
            conserved=conserved,
        )

    def key_updates(self, value: Any, indexes: list[IndexInfo], table: str) -> float:
        share = float(value)
        if not 0.0 <= share <= 1.0:
            self.fail(f"key_updates must be a share in 0..1, got {share}", table=table)
        if share and not any(index.unique for index in indexes):
            self.fail("key_updates needs a primary or unique key", table=table)
        return share

    def conserved(
        self,
        obj: dict[str, Any],
        columns: tuple[ColumnSpec, ...],
        indexes: list[IndexInfo],
        table: str,
    ) -> str | None:
        """The column marked ``conserved = true``: integer or decimal, NOT NULL, no key; the
        table only moves amounts between its rows once preloaded."""
        marked = [c for c in obj.get("columns", []) if isinstance(c, dict) and c.get("conserved")]
        if not marked:
            return None
        name = str(marked[0].get("name"))
        col = next(c.column for c in columns if c.column.name == name)
        if len(marked) > 1:
            self.fail("only one column can be conserved", table=table)
        if col.family not in _AMOUNT_FAMILIES or col.nullable:
            self.fail("a conserved column is a NOT NULL integer or decimal", table, name)
        if any(name in index.columns for index in indexes):
            self.fail("a conserved column cannot be in an index", table, name)
        if self.mix(obj.get("mix"), table, 1) != (0.0, 1.0, 0.0) or not obj.get("preload"):
            self.fail(
                "a table with a conserved column needs preload rows and mix = { update = 1 }",
                table,
                name,
            )
        return name

    def key_columns(
        self, columns: tuple[ColumnSpec, ...], indexes: list[IndexInfo], table: str
    ) -> tuple[ColumnSpec, ...]:
        """Key columns must exist and have a type the generator keeps unique; they are NOT NULL
        when in the primary key (as in MySQL)."""
        names = {c.column.name for c in columns}
        primary = {n for i in indexes if i.primary for n in i.columns}
        unique = {n for i in indexes if i.unique for n in i.columns}
        out = []
        for index in indexes:
            for name in index.columns:
                if name not in names:
                    self.fail(f"index {index.name!r} names a missing column", table, name)
        for spec in columns:
            col = spec.column
            if col.name in unique and col.family not in KEY_FAMILIES:
                self.fail(f"{col.mysql_type} cannot be in a unique key", table, col.name)
            if col.name in primary and col.nullable:
                spec = replace(spec, column=replace(col, nullable=False))
            out.append(spec)
        return tuple(out)

    def column(self, obj: Any, table: str, null_ratio: float) -> ColumnSpec:
        obj = self.keys(obj, _COLUMN_KEYS, f"a column of {table}")
        if "name" not in obj or "type" not in obj:
            self.fail("a column needs a name and a type", table=table)
        if not str(obj["name"]).strip():
            self.fail(f"column name {obj['name']!r} is blank", table=table)
        try:
            col = parse_column_type(str(obj["type"]), str(obj["name"]))
        except ScenarioError as err:
            self.fail(err.reason, table=table, column=str(obj["name"]))
        generated = obj.get("generated")
        if generated not in (None, "virtual", "stored"):
            self.fail(f"generated must be virtual or stored, got {generated!r}", table, col.name)
        col = replace(
            col,
            nullable=bool(obj.get("nullable", True)),
            default=obj.get("default"),
            generated=generated,
        )
        size = obj.get("size")
        return ColumnSpec(
            column=col,
            size=None if size is None else self.pair(size, "size", table, minimum=0),
            null_ratio=float(obj.get("null_ratio", null_ratio)),
        )

    def mix(self, value: Any, table: str, preload: int = 0) -> tuple[float, float, float]:
        if value is None:
            return (0.6, 0.3, 0.1)
        value = self.keys(value, {"insert", "update", "delete"}, f"the mix of {table}")
        weights = [float(value.get(k, 0.0)) for k in ("insert", "update", "delete")]
        total = sum(weights)
        if total <= 0 or min(weights) < 0 or (weights[0] <= 0 and not preload):
            self.fail("mix needs non-negative weights and some inserts (or preload)", table=table)
        return (weights[0] / total, weights[1] / total, weights[2] / total)

    def pair(self, value: Any, key: str, table: str, *, minimum: int) -> tuple[int, int]:
        if isinstance(value, int):
            value = [value, value]
        if not isinstance(value, list) or len(value) != 2 or not minimum <= value[0] <= value[1]:
            self.fail(f"{key} must be [low, high] with {minimum} <= low <= high", table=table)
        return int(value[0]), int(value[1])

    def oversized(self, value: Any, columns: dict[str, ColumnInfo], table: str) -> Oversized | None:
        if value is None:
            return None
        value = self.keys(value, {"every", "bytes", "column"}, f"oversized of {table}")
        name = str(value.get("column", ""))
        col = columns.get(name)
        if col is None or col.family not in (TypeFamily.STRING, TypeFamily.BINARY):
            self.fail("oversized needs a text or blob column", table=table, column=name)
        nbytes, every = int(value.get("bytes", 1 << 20)), int(value.get("every", 1000))
        if (col.length and nbytes > col.length) or every <= 0:
            self.fail(f"oversized {nbytes} bytes every {every} does not fit", table, name)
        return Oversized(every, nbytes, name)

    def ddl(self, obj: Any, scenario: Scenario) -> DDLSpec:
        obj = self.keys(obj, _DDL_KEYS, "a [[ddl]] entry")
        action = str(obj.get("action", ""))
        if action not in ACTIONS:
            self.fail(f"unknown DDL action {action!r} (expected one of {', '.join(ACTIONS)})")
        table = scenario.table_index(str(obj.get("table", "")))
        qualified = scenario.tables[table].qualified_name
        at = float(obj.get("at", 0.5))
        if not 0.0 <= at <= 1.0:
            self.fail(f"at must be a fraction of the rows in 0..1, got {at}", table=qualified)
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
            index = IndexInfo(str(spec.get("name")), tuple(spec.get("columns", ())))
        name = str(obj.get("name", ""))
        if action in ("drop_column", "drop_index") and not name:
            self.fail(f"{action} needs name", table=qualified)
        to = str(obj.get("to", ""))
        if action == "rename" and (not to or not all(p.strip() for p in to.split("."))):
            self.fail(f"rename needs to = table or schema.table, got {to!r}", table=qualified)
        return DDLSpec(at, table, action, column, name, index, to)
