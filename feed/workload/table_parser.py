"""Parsing of a scenario's ``[[tables]]`` entries (format in feed/workload/README.md): columns,
keys and indexes, the mix, templates (``count = N``), key-changing UPDATEs, preloads and a
conserved column. Every unknown key is an error, so a typo never falls back to a default."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any, NoReturn

from tisink.feed.workload.errors import ScenarioError
from tisink.feed.workload.specs import ColumnSpec, Oversized, TableSpec
from tisink.feed.workload.types import parse_column_type
from tisink.feed.workload.values import KEY_FAMILIES
from tisink.model.errors import SchemaError
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo, IndexInfo, PartitionInfo, TableInfo, partition_from_dict

_TABLE_KEYS = {"schema", "name", "weight", "keys", "zipf_s", "mix", "txn_size", "null_ratio"}
_TABLE_KEYS |= {"columns", "primary", "indexes", "oversized"}
_TABLE_KEYS |= {"count", "spread", "spread_s", "key_updates", "preload", "partition"}
_COLUMN_KEYS = {"name", "type", "nullable", "default", "null_ratio", "size", "generated"}
_COLUMN_KEYS |= {"conserved"}
_AMOUNT_FAMILIES = (TypeFamily.INT, TypeFamily.BIGINT, TypeFamily.DECIMAL)


class TableParser:
    """Checks and builds table specs; errors name ``source``, the table and the column."""

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

    def count(self, value: Any, key: str, table: str | None = None) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            self.fail(f"{key} must be a whole number >= 0, got {value!r}", table=table)
        return value

    def whole(self, value: Any, key: str, table: str | None = None, *, minimum: int) -> int:
        """An integer (or a float with no fraction, as TOML writes ``1e6``) >= ``minimum``."""
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            self.fail(f"{key} must be a whole number >= {minimum}, got {value!r}", table=table)
        return value

    def number(
        self,
        value: Any,
        key: str,
        allowed: str,
        fits: Callable[[float], bool],
        table: str | None = None,
        column: str | None = None,
    ) -> float:
        """A finite number for which ``fits`` holds; ``allowed`` says which in the error."""
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.fail(f"{key} must be {allowed}, got {value!r}", table, column)
        number = float(value)
        if not math.isfinite(number) or not fits(number):
            self.fail(f"{key} must be {allowed}, got {value!r}", table, column)
        return number

    def ratio(
        self, value: Any, key: str, table: str | None = None, column: str | None = None
    ) -> float:
        return self.number(value, key, "a number in 0..1", _fraction, table, column)

    def share(self, value: Any, key: str, table: str | None = None) -> float:
        """A weight or exponent: a finite number >= 0."""
        return self.number(value, key, "a number >= 0", lambda v: v >= 0.0, table)

    def entries(self, value: Any, key: str, table: str | None = None) -> list[Any]:
        """A list of ``key`` (tables, columns, indexes...): anything else is refused by name."""
        if not isinstance(value, list):
            self.fail(f"{key} must be a list, got {value!r}", table=table)
        return value

    def names(self, value: Any, key: str, table: str) -> tuple[str, ...]:
        """Column names: a list of texts."""
        listed = self.entries(value, key, table)
        if not all(isinstance(name, str) for name in listed):
            self.fail(f"{key} must be a list of column names, got {value!r}", table=table)
        return tuple(listed)

    def pair(self, value: Any, key: str, table: str, *, minimum: int) -> tuple[int, int]:
        if isinstance(value, int):
            value = [value, value]
        whole = isinstance(value, list) and len(value) == 2
        whole = whole and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        if not whole or not minimum <= value[0] <= value[1]:
            self.fail(f"{key} must be [low, high] with {minimum} <= low <= high", table=table)
        return int(value[0]), int(value[1])

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
        s = self.share(obj.get("spread_s", 1.1), "spread_s") if spread == "zipf" else 0.0
        shares = [1 / (i**s) for i in range(1, count + 1)]
        total = sum(shares)
        return [
            replace(
                spec, name=f"{spec.name}{i}", weight=spec.weight * share / total, template=spec.name
            )
            for i, share in enumerate(shares, start=1)
        ]

    def table(self, obj: Any, defaults: dict[str, Any]) -> TableSpec:
        obj = self.keys(obj, _TABLE_KEYS, "a [[tables]] entry")
        merged = {**defaults, **obj}
        if "name" not in obj:
            self.fail("a [[tables]] entry needs a name")
        schema, name = str(obj.get("schema", "test")), str(obj["name"])
        qualified = f"{schema}.{name}"
        if not schema.strip() or not name.strip():
            self.fail(f"a [[tables]] entry needs a schema and a name, got {qualified!r}")
        null_ratio = self.ratio(merged.get("null_ratio", 0.1), "null_ratio", qualified)
        preload = self.count(obj.get("preload", 0), "preload", qualified)
        listed = self.entries(obj.get("columns", []), "columns", qualified)
        columns = tuple(self.column(c, qualified, null_ratio) for c in listed)
        if not columns:
            self.fail("a table needs columns", table=qualified)
        by_name = {c.column.name: c.column for c in columns}
        if len(by_name) != len(columns):
            self.fail("column names repeat", table=qualified)
        indexes = []
        primary = self.names(obj.get("primary", []), "primary", qualified)
        if primary:
            indexes.append(IndexInfo("primary", tuple(primary), unique=True, primary=True))
        for index in self.entries(obj.get("indexes", []), "indexes", qualified):
            index = self.keys(index, {"name", "columns", "unique"}, f"an index of {qualified}")
            if "name" not in index or "columns" not in index:
                self.fail("an index needs a name and columns", table=qualified)
            names = self.names(index["columns"], "index columns", qualified)
            indexes.append(IndexInfo(str(index["name"]), names, bool(index.get("unique"))))
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
            weight=self.share(obj.get("weight", 1.0), "weight", qualified),
            keys=keys,
            zipf_s=self.share(merged.get("zipf_s", 1.1), "zipf_s", qualified),
            mix=self.mix(merged.get("mix"), qualified, preload),
            txn_size=self.pair(merged.get("txn_size", [1, 5]), "txn_size", qualified, minimum=1),
            oversized=self.oversized(obj.get("oversized"), by_name, qualified),
            key_updates=self.key_updates(merged.get("key_updates", 0.0), indexes, qualified),
            preload=preload,
            conserved=conserved,
            partition=self.partition(obj.get("partition"), schema, name, columns, indexes),
        )

    def partition(
        self,
        value: Any,
        schema: str,
        name: str,
        columns: tuple[ColumnSpec, ...],
        indexes: list[IndexInfo],
    ) -> PartitionInfo | None:
        """The table's partitioning (the feed format's ``partition`` object, ids left out):
        routable columns (``TableInfo``'s check), every unique key holding them all (TiDB's
        rule), and partitions for every value the generator draws."""
        if value is None:
            return None
        table = f"{schema}.{name}"
        try:
            part = value if isinstance(value, PartitionInfo) else partition_from_dict(_toml(value))
            TableInfo(schema, name, 0, 0, tuple(c.column for c in columns), (), part)
        except SchemaError as err:
            self.fail(str(err).removeprefix(f"table {table}: "), table=table)
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            self.fail(f"bad partition: {err!r}", table=table)
        for index in indexes:
            missing = [c for c in part.columns if index.unique and c not in index.columns]
            if missing:
                self.fail(
                    f"unique key {index.name!r} must include every partitioning column",
                    table,
                    missing[0],
                )
        last = part.definitions[-1]
        if part.kind.startswith("RANGE") and last.less_than[0] is not None:
            self.fail("the last RANGE partition must be LESS THAN MAXVALUE", table=table)
        if part.kind.startswith("LIST") and not any(d.default for d in part.definitions):
            self.fail("a LIST partitioning needs a DEFAULT partition", table=table)
        return part

    def key_updates(self, value: Any, indexes: list[IndexInfo], table: str) -> float:
        share = self.number(value, "key_updates", "a share in 0..1", _fraction, table)
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
            null_ratio=self.ratio(obj.get("null_ratio", null_ratio), "null_ratio", table, col.name),
        )

    def mix(self, value: Any, table: str, preload: int = 0) -> tuple[float, float, float]:
        if value is None:
            return (0.6, 0.3, 0.1)
        value = self.keys(value, {"insert", "update", "delete"}, f"the mix of {table}")
        weights = [
            self.share(value.get(k, 0.0), f"mix {k}", table) for k in ("insert", "update", "delete")
        ]
        total = sum(weights)
        if total <= 0 or min(weights) < 0 or (weights[0] <= 0 and not preload):
            self.fail("mix needs non-negative weights and some inserts (or preload)", table=table)
        return (weights[0] / total, weights[1] / total, weights[2] / total)

    def oversized(self, value: Any, columns: dict[str, ColumnInfo], table: str) -> Oversized | None:
        if value is None:
            return None
        value = self.keys(value, {"every", "bytes", "column"}, f"oversized of {table}")
        name = str(value.get("column", ""))
        col = columns.get(name)
        if col is None or col.family not in (TypeFamily.STRING, TypeFamily.BINARY):
            self.fail("oversized needs a text or blob column", table=table, column=name)
        nbytes = self.whole(value.get("bytes", 1 << 20), "oversized bytes", table, minimum=1)
        every = self.whole(value.get("every", 1000), "oversized every", table, minimum=1)
        if (col.length and nbytes > col.length) or every <= 0:
            self.fail(f"oversized {nbytes} bytes every {every} does not fit", table, name)
        return Oversized(every, nbytes, name)


def _toml(value: Any) -> Any:
    """A scenario's ``partition`` table: TOML has no null, so a RANGE bound is written
    ``"MAXVALUE"`` there (the feed format's null)."""
    if not isinstance(value, dict) or not isinstance(value.get("definitions"), list):
        return value
    definitions = []
    for definition in value["definitions"]:
        if isinstance(definition, dict) and isinstance(definition.get("lessThan"), list):
            bounds = [None if b == "MAXVALUE" else b for b in definition["lessThan"]]
            definition = {**definition, "lessThan": bounds}
        definitions.append(definition)
    return {**value, "definitions": definitions}


def _fraction(value: float) -> bool:
    return 0.0 <= value <= 1.0
