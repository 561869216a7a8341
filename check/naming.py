"""Which actual table each expected table is compared with, and which tables take part.

Tables are named ``schema.table`` (TiDB's names, ``database.Location`` says where each is), the
schema in backquotes when it holds a ``.`` or starts with a backquote (```s.dot`.ted`` is table
``ted`` of schema ``s.dot``, ``s.dot.ted`` table ``dot.ted`` of ``s``), so no two tables share a
name; ``tidb_name`` writes it, ``split_name`` reads it back.
``--table``/``--ignore-table`` take shell patterns (``shop.*``); ``--schema-map src=dst`` and
``--table-map src.t=dst.u`` name where a consumer keeps a table under its own names. An actual
table matches by its exact name, else by the one name equal ignoring case."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from tisink.check.errors import CheckError
from tisink.eventsink.sql.sqlite import split_table_name

SQLITE_MAIN = "main"
"""The TiDB schema of a SQLite table whose name is no ``schema.table``."""


def tidb_name(schema: str, table: str) -> str:
    """``schema.table``, the schema quoted as MySQL does when a ``.`` could misplace the cut."""
    if "." in schema or schema.startswith("`"):
        schema = "`" + schema.replace("`", "``") + "`"
    return f"{schema}.{table}"


def split_name(name: str) -> tuple[str, str]:
    """(schema, table) of a ``tidb_name``; a name without a dot is a table of no schema."""
    if name.startswith("`"):
        end = 1
        while (end := name.find("`", end)) >= 0 and name[end + 1 : end + 2] == "`":
            end += 2
        if end > 0 and name[end + 1 : end + 2] == ".":
            return name[1:end].replace("``", "`"), name[end + 2 :]
    schema, _, table = name.partition(".")
    return (schema, table) if table else ("", name)


def sqlite_tidb_name(stored: str) -> str:
    """The TiDB name of a SQLite table: ``schema.table`` as tisink's SQLite sink names it
    (``eventsink/sql/sqlite.py``), else ``main.<name>``."""
    split = split_table_name(stored)
    return tidb_name(*split) if split is not None else f"{SQLITE_MAIN}.{stored}"


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
        schema, table = split_name(name)
        return tidb_name(self.schema_map.get(schema, schema), table)


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
        schemas.add(split_name(target)[0].casefold())
        candidates = folded.get(target.casefold(), [])
        found = target if target in actual_names else None
        pairs.append((name, found or (candidates[0] if len(candidates) == 1 else None)))
    used = {found for _, found in pairs}
    extra = sorted(
        name
        for name in actual_names - used
        if split_name(name)[0].casefold() in schemas and naming.wanted(name)
    )
    return Matching(pairs, extra)
