"""Which actual table each expected table is compared with, and which tables take part.

Tables are named ``schema.table`` (TiDB's names, ``database.Location`` says where each is).
``--table``/``--ignore-table`` take shell patterns (``shop.*``); ``--schema-map src=dst`` and
``--table-map src.t=dst.u`` name where a consumer keeps a table under its own names. An actual
table matches by its exact name, else by the one name equal ignoring case."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from tisink.check.errors import CheckError


@dataclass(frozen=True)
class Naming:
    tables: tuple[str, ...] = ()
    """Patterns of the tables to compare (empty: all)."""
    ignore_tables: tuple[str, ...] = ()
    schema_map: Mapping[str, str] = field(default_factory=dict)
    table_map: Mapping[str, str] = field(default_factory=dict)

    def wanted(self, name: str) -> bool:
        def hits(patterns: Iterable[str]) -> bool:
            return any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)

        return (not self.tables or hits(self.tables)) and not hits(self.ignore_tables)

    def unmatched(self, names: Iterable[str]) -> list[str]:
        """The ``tables`` patterns that match none of ``names`` (a typo would compare
        nothing and call that equal)."""
        names = list(names)
        return [p for p in self.tables if not any(fnmatch.fnmatchcase(n, p) for n in names)]

    def target(self, name: str) -> str:
        """The actual side's name of the expected table ``name``."""
        if name in self.table_map:
            return self.table_map[name]
        schema, _, table = name.partition(".")
        return f"{self.schema_map.get(schema, schema)}.{table}"


def parse_pairs(items: Iterable[str], option: str) -> dict[str, str]:
    """``["a=b", ...]`` -> ``{"a": "b"}``; CheckError naming ``option`` for a malformed item."""
    pairs: dict[str, str] = {}
    for item in items:
        source, sep, target = item.partition("=")
        if not sep or not source or not target:
            raise CheckError(f"{option} takes SOURCE=TARGET, got {item!r}")
        pairs[source] = target
    return pairs


@dataclass
class Matching:
    pairs: list[tuple[str, str | None]]
    """(expected table, its actual table or None), by expected name."""
    extra: list[str]
    """Actual tables nothing expected maps to, in the schemas the expected tables map to."""


def match_tables(expected: Iterable[str], actual: Iterable[str], naming: Naming) -> Matching:
    actual_names = set(actual)
    folded: dict[str, list[str]] = {}
    for name in actual_names:
        folded.setdefault(name.casefold(), []).append(name)
    pairs: list[tuple[str, str | None]] = []
    schemas: set[str] = set()
    for name in sorted(n for n in expected if naming.wanted(n)):
        target = naming.target(name)
        schemas.add(target.partition(".")[0].casefold())
        candidates = folded.get(target.casefold(), [])
        found = target if target in actual_names else None
        pairs.append((name, found or (candidates[0] if len(candidates) == 1 else None)))
    used = {found for _, found in pairs}
    extra = sorted(
        name
        for name in actual_names - used
        if name.partition(".")[0].casefold() in schemas and naming.wanted(name)
    )
    return Matching(pairs, extra)
