"""Rows stepped over by a selection: the rows kept are exactly the whole feed's, in place."""

from __future__ import annotations

import zlib
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.feed.format.records import FeedRecord, FeedRow
from tisink.feed.workload import (
    KeepRow,
    SkippedRow,
    generate_records,
    generate_selected_records,
    load_scenario,
    parse_scenario,
    record_line,
)
from tisink.feed.workload.generator import plan_windows, record_schedule
from tisink.feed.workload.selection import selectable
from tisink.model.table import TableInfo

SCENARIO = """
rows = 3000
txn_size = [1, 6]
mix = { insert = 0.45, update = 0.4, delete = 0.15 }

[[tables]]
name = "orders"
primary = ["id"]
indexes = [{ name = "u_code", columns = ["code"], unique = true }]
preload = 40
columns = [
  { name = "id", type = "bigint", nullable = false },
  { name = "code", type = "varchar(20)", nullable = false },
  { name = "note", type = "varchar(64)" },
  { name = "amount", type = "decimal(10,2)" },
  { name = "doc", type = "longtext" },
  { name = "raw", type = "varbinary(16)" },
]
oversized = { every = 25, bytes = 3000, column = "doc" }

[[tables]]
name = "events"
keys = "zipf"
primary = ["id"]
columns = [
  { name = "id", type = "int", nullable = false },
  { name = "at", type = "datetime(3)" },
  { name = "kind", type = "enum('a','b','c')" },
]

[[tables]]
name = "moves"
key_updates = 0.3
primary = ["id"]
columns = [{ name = "id", type = "int", nullable = false }, { name = "v", type = "int" }]
"""


class _ByKey:
    """Keeps the rows whose first key value falls in ``kept`` residues modulo ``modulus``;
    counts the key images it was shown."""

    def __init__(self, modulus: int, kept: frozenset[int], whole: frozenset[str]) -> None:
        self.modulus, self.kept, self.whole = modulus, kept, whole
        self.asked: list[dict[str, Any]] = []

    def keeper(self, table: TableInfo, keys: tuple[str, ...] = ("id",)) -> KeepRow | None:
        assert keys[0] == "id"
        if table.table in self.whole:
            return None

        def keep(image: dict[str, Any]) -> bool:
            self.asked.append(image)
            first = next(iter(image.values()))
            number = first if isinstance(first, int) else int(str(first).lstrip("k") or 0)
            return number % self.modulus in self.kept

        return keep


def _selected(scenario: Any, seed: int, rows: int | None, select: Any) -> list[Any]:
    """The selected records with each run of stepped-over rows as that many markers: the
    generator gives one per run, never two in a row."""
    out: list[Any] = []
    previous: Any = None
    for record in generate_selected_records(scenario, seed, rows, select):
        if type(record) is SkippedRow:
            assert record.rows >= 1
            assert type(previous) is not SkippedRow or previous.commit_ts != record.commit_ts
            out.extend([record._replace(rows=1)] * record.rows)
        else:
            out.append(record)
        previous = record
    return out


def _check(whole: list[FeedRecord], selected: list[Any], select: _ByKey) -> int:
    """Every selected record is the whole feed's at its place, or marks a row not kept;
    returns how many were stepped over."""
    assert len(selected) == len(whole)
    skipped = 0
    for full, mine in zip(whole, selected, strict=True):
        if type(mine) is SkippedRow:
            skipped += 1
            assert type(full) is FeedRow
            row = full.row
            assert (mine.commit_ts, mine.table.table) == (row.commit_ts, row.table.table)
            image = row.after if row.after is not None else row.before
            assert image is not None
            keep = select.keeper(row.table)
            assert keep is not None and not keep(image)  # the key comes first in every table
        else:
            assert record_line(mine) == record_line(full)
    return skipped


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    modulus=st.integers(2, 5),
    kept=st.frozensets(st.integers(0, 4), max_size=3),
    whole=st.frozensets(st.sampled_from(["orders", "events"]), max_size=1),
)
def test_kept_rows_are_the_whole_feeds_rows_in_place(
    seed: int, modulus: int, kept: frozenset[int], whole: frozenset[str]
) -> None:
    scenario = parse_scenario(SCENARIO, "selection.toml")
    full = list(generate_records(scenario, seed))
    select = _ByKey(modulus, kept, whole)
    selected = list(_selected(scenario, seed, None, select))
    skipped = _check(full, selected, _ByKey(modulus, kept, whole))
    stepped = {r.table.table for r in selected if type(r) is SkippedRow}
    assert "moves" not in stepped  # key-changing UPDATEs: every row built
    assert not stepped & whole
    if len(kept & set(range(modulus))) < modulus and len(whole) == 0:
        assert skipped > 0
    # preloaded rows are built (the preload draws them), later ones asked about
    assert all(image for image in select.asked)


class _ByHash:
    """Keeps the rows whose key image hashes to one of ``owned`` of ``partitions``: a
    dispatcher that reads the key columns, as index-value does; ``whole`` tables unselected."""

    def __init__(self, partitions: int, owned: frozenset[int], whole: frozenset[str]) -> None:
        self.partitions, self.owned, self.whole = partitions, owned, whole

    def keeper(self, table: TableInfo, keys: tuple[str, ...]) -> KeepRow | None:
        if table.table in self.whole:
            return None

        def keep(image: dict[str, Any]) -> bool:
            text = "/".join(str(image[name]) for name in keys).encode()
            return zlib.crc32(text) % self.partitions in self.owned

        return keep


def test_demo_steps_over_rows_of_every_table_but_the_renamed_one() -> None:
    """demo's DDLs (an ALTER of each kind, TRUNCATE, CREATE) leave its tables selectable,
    except ``orders``, which a RENAME may route elsewhere: built whole."""
    scenario = load_scenario("demo")
    whole = list(generate_records(scenario, 3, 4000))
    select = _ByHash(2, frozenset({0}), frozenset())
    selected = list(_selected(scenario, 3, 4000, select))
    assert len(selected) == len(whole)
    stepped = set()
    for full, mine in zip(whole, selected, strict=True):
        if type(mine) is SkippedRow:
            stepped.add(mine.table.table)
        else:
            assert record_line(mine) == record_line(full)
    assert stepped and "orders" not in stepped and "purchase_orders" not in stepped


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    partitions=st.integers(1, 7),
    tasks=st.integers(1, 5),
    name=st.sampled_from(["demo", "sysbench", "all-types"]),
)
def test_the_tasks_rows_together_are_the_workload_once(
    seed: int, partitions: int, tasks: int, name: str
) -> None:
    """Each task builds the rows of the partitions it owns (partition p: task p % tasks):
    every row of the whole feed is built by exactly one task, the same bytes in its place,
    and every task has every other record (DDLs, resolved); a sparse walk builds the same,
    over one schedule whose tables were planned once for all tasks (as a Spark driver does)."""
    scenario = load_scenario(name)
    records = list(generate_records(scenario, seed, 1500))
    unselected = {t.name for i, t in enumerate(scenario.tables) if not selectable(scenario, i)}
    renames = [d for d in scenario.ddls if d.action == "rename"]
    unselected |= {
        d.to.split(".")[-1] for d in renames if scenario.tables[d.table].name in unselected
    }
    built: list[list[bytes]] = [[] for _ in records]
    schedule = record_schedule(scenario, seed, 1500)
    plan_windows(scenario, seed, schedule)
    for task in range(tasks):
        owned = frozenset(p for p in range(partitions) if p % tasks == task)
        select = _ByHash(partitions, owned, frozenset())
        dense = []
        for place, record in enumerate(_selected(scenario, seed, 1500, select)):
            if type(record) is not SkippedRow:
                built[place].append(record_line(record))  # type: ignore[arg-type]
                dense.append(built[place][-1])
        sparse = generate_selected_records(scenario, seed, 1500, select, schedule, sparse=True)
        assert [record_line(r) for r in sparse if type(r) is not SkippedRow] == dense
    for record, copies in zip(records, built, strict=True):
        line = record_line(record)
        assert all(copy == line for copy in copies)
        if type(record) is FeedRow and record.row.table.table not in unselected:
            assert len(copies) == 1, line[:100]
        else:  # a DDL, a resolved record, or a row of a table every task builds
            assert len(copies) == tasks, line[:100]
