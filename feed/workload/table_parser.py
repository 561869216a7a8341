"""Parsing of a scenario's ``[[tables]]`` entries (format in feed/workload/README.md): columns,
keys and indexes, the mix, templates (``count = N``), key-changing UPDATEs, preloads and a
conserved column. Every unknown key is an error, so a typo never falls back to a default."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, NoReturn

from tisink.feed.workload.errors import ScenarioError
from tisink.feed.workload.specs import ColumnSpec, Oversized, TableSpec
from tisink.feed.workload.types import parse_column_type
from tisink.feed.workload.values import KEY_FAMILIES
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo, IndexInfo

_TABLE_KEYS = {"schema", "name", "weight", "keys", "zipf_s", "mix", "txn_size", "null_ratio"}
_TABLE_KEYS |= {"columns", "primary", "indexes", "oversized"}
_TABLE_KEYS |= {"count", "spread", "spread_s", "key_updates", "preload"}
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

    def pair(self, value: Any, key: str, table: str, *, minimum: int) -> tuple[int, int]:
        if isinstance(value, int):
            value = [value, value]
        if not isinstance(value, list) or len(value) != 2 or not minimum <= value[0] <= value[1]:
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
        s = float(obj.get("spread_s", 1.1)) if spread == "zipf" else 0.0
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
