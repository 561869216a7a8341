"""Rows stepped over by a selection: the rows kept are exactly the whole feed's, in place."""

from __future__ import annotations

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
    selected = list(generate_selected_records(scenario, seed, None, select))
    skipped = _check(full, selected, _ByKey(modulus, kept, whole))
    stepped = {r.table.table for r in selected if type(r) is SkippedRow}
    assert "moves" not in stepped  # key-changing UPDATEs: every row built
    assert not stepped & whole
    if len(kept & set(range(modulus))) < modulus and len(whole) == 0:
        assert skipped > 0
    # preloaded rows are built (the preload draws them), later ones asked about
    assert all(image for image in select.asked)


def test_a_scenario_with_ddls_is_built_whole() -> None:
    scenario = load_scenario("demo")
    select = _ByKey(2, frozenset(), frozenset())
    selected = list(generate_selected_records(scenario, 3, 2000, select))
    assert not select.asked
    whole = generate_records(scenario, 3, 2000)
    assert [record_line(r) for r in selected] == [record_line(r) for r in whole]  # type: ignore[arg-type]
