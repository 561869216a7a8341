"""The frozen description of a scenario that the parser (``scenario``) builds: tables,
columns, DDLs, multi-table transactions (``transactions`` parses them), DDL storms (``storm``)
and the scenario itself, which the schedule and the tables generate from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tisink.feed.workload.errors import ScenarioError
from tisink.model.table import ColumnInfo, IndexInfo, PartitionInfo
from tisink.model.tso import LATEST_PHYSICAL_MS, LATEST_TS, LOGICAL_BITS, utc_text

MAX_STORM_DDLS = 100_000
"""The most DDLs a ``[ddl_storm]`` may add to a feed: each costs milliseconds to make and
kilobytes to write (the table's schema), so 100 000 is minutes and a gigabyte already."""
_YEAR_10000_MS = 253_402_300_800_000
"""The first millisecond past what ``utc_text`` (a datetime) can show."""

if TYPE_CHECKING:
    from tisink.feed.rate_profile import RateProfile


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
    partition: PartitionInfo | None = None
    """TiDB's partitioning of the table (ids 0: the timeline numbers them after the table's)."""

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
class TxnPart:
    """One table of a multi-table transaction: picked among ``tables`` by ``cumulative``
    weights (one table unless a template was named), writing ``rows`` = [low, high] rows."""

    tables: tuple[int, ...]
    cumulative: tuple[float, ...]
    rows: tuple[int, int]


@dataclass(frozen=True)
class TxnSpec:
    name: str
    weight: float
    parts: tuple[TxnPart, ...]


@dataclass(frozen=True)
class StormSpec:
    """``per_minute`` DDLs per minute of commit time, kinds by ``cumulative`` weight, on
    the ``tables`` (indexes in Scenario.tables)."""

    per_minute: float
    kinds: tuple[str, ...]
    cumulative: tuple[float, ...]
    tables: tuple[int, ...]

    @property
    def interval_ms(self) -> float:
        return 60_000.0 / self.per_minute


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

    def size_problem(self, rows: int) -> str | None:
        """Why a feed of ``rows`` rows cannot be generated, known before its first step: its
        commit times pass the last TSO, or its storm makes more than MAX_STORM_DDLS DDLs."""
        span_ms = (self.profile.due_s(rows) if self.profile else rows / self.rate) * 1000.0
        pace = f"rate_profile {self.profile.text!r}" if self.profile else f"rate {self.rate:g}/s"
        end_ms = self.start_ms + span_ms
        if end_ms >= LATEST_PHYSICAL_MS:
            end = utc_text(int(end_ms)) if end_ms < _YEAR_10000_MS else f"the year {_year(end_ms)}"
            return (
                f"rows = {rows} at {pace} take {span_ms / 1000:.4g} s of commit time, to "
                f"{end}; commit times must be before {utc_text(LATEST_PHYSICAL_MS)}"
            )
        txns = -(-rows // self._largest_txn())
        room = LATEST_TS - (self.start_ms << LOGICAL_BITS)
        if txns > room:
            return (
                f"rows = {rows} need at least {txns} transactions, each with its own commitTs, "
                f"and only {room} TSOs are left before {utc_text(LATEST_PHYSICAL_MS)}"
            )
        if self.storm is not None:
            ddls = span_ms / self.storm.interval_ms
            if ddls > MAX_STORM_DDLS:
                return (
                    f"[ddl_storm] per_minute = {self.storm.per_minute:g} over the "
                    f"{span_ms / 1000:.4g} s of commit time of rows = {rows} makes "
                    f"{ddls:,.0f} DDLs; at most {MAX_STORM_DDLS:,} (lower per_minute or rows)"
                )
        return None

    def check_size(self, rows: int) -> None:
        """ScenarioError with ``size_problem``'s figure, if it has one."""
        problem = self.size_problem(rows)
        if problem is not None:
            raise ScenarioError(problem, file=self.source)

    def _largest_txn(self) -> int:
        sizes = [t.txn_size[1] for t in self.tables]
        sizes += [sum(part.rows[1] for part in txn.parts) for txn in self.transactions]
        return max(sizes)

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


def _year(ms: float) -> int:
    """The (Gregorian, on average) year of Unix time ``ms``, for one past datetime's range."""
    return int(1970 + ms / (365.2425 * 86_400_000))
