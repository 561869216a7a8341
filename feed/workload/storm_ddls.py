"""The DDLs of a storm (``storm``): each drawn to fit the table as the timeline has it then.

A kind that finds nothing to act on falls back to one that always can (a drop without a
storm column adds one, a drop_index without a plain index adds one), so the storm keeps its
rate. Draws come from the schedule's RNG, so every partition of a parallel generation sees
the same storm.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Iterator

from tisink.feed.workload.draws import below
from tisink.feed.workload.specs import ColumnSpec, DDLSpec, Scenario, StormSpec
from tisink.feed.workload.steps import NO_TABLE, PlannedDDL, TsoClock, derive_seed
from tisink.feed.workload.timeline import SchemaTimeline
from tisink.feed.workload.types import parse_column_type
from tisink.model.events import DDLEvent, DDLType
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo

COLUMN_PREFIX = "storm_c"
_ADDED_TYPES = ("int", "varchar(32)", "datetime(3)", "decimal(10,2)", "json")
_WIDER = {"int": "bigint", "varchar": "varchar(64)"}
_INDEXABLE = frozenset(
    (TypeFamily.INT, TypeFamily.BIGINT, TypeFamily.DATE, TypeFamily.DATETIME, TypeFamily.DECIMAL)
)


class DatabaseDDL(str):
    """The query of a DDL without a table (CREATE / DROP DATABASE)."""


class StormDraws:
    """Draws the storm's DDLs; counters name the columns, indexes and databases it makes."""

    def __init__(self, spec: StormSpec, timeline: SchemaTimeline) -> None:
        self.spec = spec
        self.timeline = timeline
        self._made = 0
        self._databases: list[str] = []

    def next(self, rng: random.Random) -> DDLSpec | DatabaseDDL | None:
        """The next DDL: a DDLSpec on a live table, a database DDL, or None when no table of
        the storm is live and a table kind was drawn."""
        point = rng.random() * self.spec.cumulative[-1]
        kind = self.spec.kinds[bisect.bisect_right(self.spec.cumulative, point)]
        if kind.endswith("_database"):
            return self._database(kind)
        live = [t for t in self.spec.tables if self.timeline.live(t)]
        if not live:
            return None
        table = live[below(rng, len(live))]
        info = self.timeline.current[table]
        assert info is not None
        self._made += 1
        return getattr(self, "_" + kind)(rng, table, info)

    def _database(self, kind: str) -> DatabaseDDL:
        if kind == "drop_database" and self._databases:
            return DatabaseDDL(f"DROP DATABASE `{self._databases.pop(0)}`")
        self._made += 1
        name = f"storm_db{self._made}"
        self._databases.append(name)
        return DatabaseDDL(f"CREATE DATABASE `{name}`")

    def _add_column(self, rng: random.Random, table: int, info: TableInfo) -> DDLSpec:
        text = _ADDED_TYPES[below(rng, len(_ADDED_TYPES))]
        col = parse_column_type(text, f"{COLUMN_PREFIX}{self._made}")
        return DDLSpec(0.0, table, "add_column", column=ColumnSpec(col))

    def _drop_column(self, rng: random.Random, table: int, info: TableInfo) -> DDLSpec:
        indexed = {name for index in info.indexes for name in index.columns}
        names = [c.name for c in _storm_columns(info) if c.name not in indexed]
        if not names:
            return self._add_column(rng, table, info)
        return DDLSpec(0.0, table, "drop_column", name=names[below(rng, len(names))])

    def _modify_column(self, rng: random.Random, table: int, info: TableInfo) -> DDLSpec:
        narrow = [c for c in _storm_columns(info) if c.mysql_type in _WIDER and c.length < 64]
        if not narrow:
            return self._add_column(rng, table, info)
        col = narrow[below(rng, len(narrow))]
        wider = parse_column_type(_WIDER[col.mysql_type], col.name)
        return DDLSpec(0.0, table, "modify_column", column=ColumnSpec(wider))

    def _add_index(self, rng: random.Random, table: int, info: TableInfo) -> DDLSpec:
        indexed = {name for index in info.indexes for name in index.columns}
        plain = [c.name for c in info.stored_columns if _indexable(c) and c.name not in indexed]
        if not plain:
            return self._add_column(rng, table, info)
        name = plain[below(rng, len(plain))]
        index = IndexInfo(f"storm_i{self._made}", (name,))
        return DDLSpec(0.0, table, "add_index", index=index)

    def _drop_index(self, rng: random.Random, table: int, info: TableInfo) -> DDLSpec:
        plain = [index.name for index in info.indexes if not index.unique]
        if not plain:
            return self._add_index(rng, table, info)
        return DDLSpec(0.0, table, "drop_index", name=plain[below(rng, len(plain))])

    def _truncate(self, rng: random.Random, table: int, info: TableInfo) -> DDLSpec:
        if self.timeline.scenario.tables[table].conserved is not None:
            return self._add_column(rng, table, info)  # emptying it would change the sum
        return DDLSpec(0.0, table, "truncate")


def _storm_columns(info: TableInfo) -> list[ColumnInfo]:
    return [c for c in info.columns if c.name.startswith(COLUMN_PREFIX)]


def _indexable(col: ColumnInfo) -> bool:
    return col.family in _INDEXABLE or col.mysql_type in ("char", "varchar")


class StormSteps:
    """The storm's DDLs as they fall due on the commit-time clock (RNG of its own)."""

    def __init__(
        self, scenario: Scenario, seed: int, timeline: SchemaTimeline, clock: TsoClock
    ) -> None:
        assert scenario.storm is not None
        self._rng = random.Random(derive_seed(seed, "storm"))
        self._draws = StormDraws(scenario.storm, timeline)
        self._interval = scenario.storm.interval_ms
        self._next_ms = self._interval
        self._timeline = timeline
        self._clock = clock

    def due(self) -> Iterator[PlannedDDL]:
        while self._clock.elapsed_ms >= self._next_ms:
            self._next_ms += self._interval
            ddl = self._draws.next(self._rng)
            if ddl is None:
                continue
            commit_ts, start_ts = self._clock.next(0)
            if isinstance(ddl, DatabaseDDL):
                event = DDLEvent(commit_ts, DDLType.QUERY, str(ddl), None, None, start_ts)
                yield PlannedDDL(NO_TABLE, event, None)
            else:
                yield PlannedDDL(ddl.table, self._timeline.apply(ddl, commit_ts, start_ts), ddl)
