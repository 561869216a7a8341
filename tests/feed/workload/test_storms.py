"""DDL storms, database DDLs and resolved records of a workload."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal
from importlib import resources
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tisink.feed.format.reader import FeedParser
from tisink.feed.format.records import FeedDDL, FeedResolved, FeedRow
from tisink.feed.workload import (
    ScenarioError,
    generate_records,
    generate_table_records,
    merge_partitions,
    parse_scenario,
    record_line,
)
from tisink.model.events import DDLType

STORM = """
name = "storm"
rows = 3000
rate = 1000
resolved_every_ms = 250
txn_size = [1, 4]

[[tables]]
name = "t"
count = 3
primary = ["id"]
indexes = [{ name = "uk", columns = ["code"], unique = true }, { name = "k", columns = ["n"] }]
key_updates = 0.2
columns = [
  { name = "id", type = "bigint", nullable = false },
  { name = "code", type = "char(12)", nullable = false },
  { name = "n", type = "int" },
  { name = "s", type = "varchar(40)" },
  { name = "when", type = "datetime(6)" },
  { name = "doc", type = "json" },
]

[[tables]]
schema = "other"
name = "plain"
columns = [{ name = "x", type = "smallint" }, { name = "y", type = "text" }]

[ddl_storm]
per_minute = 600
"""
SEEDS = st.integers(min_value=0, max_value=2**32)


def _records(seed: int, text: str = STORM) -> list[Any]:
    return list(generate_records(parse_scenario(text, "storm.toml"), seed))


@given(seed=SEEDS)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_every_row_is_valid_after_each_storm_ddl(seed: int) -> None:
    records = _records(seed)
    lines = [record_line(r) for r in records]
    parsed = list(FeedParser().parse_lines(lines, "storm.jsonl"))  # validates every row
    assert len(parsed) == len(records)
    kinds = Counter(r.ddl.ddl_type for r in records if type(r) is FeedDDL)
    assert sum(kinds.values()) - 4 >= 25  # 3 s of commit time at 10 a second, plus CREATEs
    # which kinds a seed draws is up to the seed (some draw no TRUNCATE in 30 DDLs): the
    # variety is the next test's, on a fixed seed


def test_the_storm_draws_every_kind_on_several_tables() -> None:
    records = _records(1, STORM.replace("per_minute = 600", "per_minute = 3000"))
    ddls = [r.ddl for r in records if type(r) is FeedDDL]
    queries = " ".join(d.query for d in ddls)
    for word in ("ADD COLUMN", "DROP COLUMN", "MODIFY COLUMN", "CREATE INDEX", "DROP INDEX"):
        assert word in queries
    for word in ("TRUNCATE TABLE", "CREATE DATABASE", "DROP DATABASE"):
        assert word in queries
    assert all(d.table is None for d in ddls if d.ddl_type is DDLType.QUERY)
    assert len({d.table.table for d in ddls if d.table is not None}) == 4


def test_ddl_storm_at_a_rate_of_commit_time() -> None:
    records = _records(2)
    storm = [r for r in records if type(r) is FeedDDL and r.ddl.ddl_type is not DDLType.CREATE]
    first = min(r.row.commit_ts for r in records if type(r) is FeedRow)
    span_ms = (storm[-1].commit_ts - first) >> 18
    assert len(storm) == pytest.approx(span_ms / 100, abs=2)


def test_resolved_records_promise_what_they_say() -> None:
    records = _records(3)
    resolved = [r.ts for r in records if type(r) is FeedResolved]
    assert len(resolved) >= 10
    at = -1
    for record in records:
        if type(record) is FeedResolved:
            at = record.ts
        else:
            ts = record.row.commit_ts if type(record) is FeedRow else record.commit_ts
            assert ts > at
    gaps = {(b - a) >> 18 for a, b in pairwise(resolved)}
    assert min(gaps) >= 200


def test_a_storm_feed_merges_from_partitions() -> None:
    scenario = parse_scenario(STORM, "storm.toml")
    whole = b"".join(record_line(r) for r in generate_records(scenario, 5))
    groups = [["t2", "plain"], ["t1", "t3"]]  # t1 is table 0: it carries the table-less records
    parts = [generate_table_records(scenario, 5, None, names) for names in groups]
    assert b"".join(record_line(r) for r in merge_partitions(parts)) == whole


def test_the_same_seed_gives_the_same_storm() -> None:
    assert [record_line(r) for r in _records(7)] == [record_line(r) for r in _records(7)]
    assert [record_line(r) for r in _records(7)] != [record_line(r) for r in _records(8)]


@pytest.mark.parametrize(
    ("storm", "message"),
    [
        ("per_minute = 0", "per_minute must be a number > 0, got 0"),
        ("kinds = { rename = 1 }", "kind 'rename'"),
        ("kinds = { truncate = 0 }", "need some weight"),
        ("tables = ['nope']", "no table 'nope'"),
        ("every = 3", "unknown key 'every'"),
    ],
)
def test_bad_storms_are_refused(storm: str, message: str) -> None:
    text = STORM.replace("per_minute = 600", storm)
    with pytest.raises(ScenarioError, match=message):
        parse_scenario(text, "storm.toml")


def test_a_storm_over_the_bank_keeps_the_sum() -> None:
    bank = (resources.files("tisink.feed.workload") / "scenarios" / "bank.toml").read_text()
    storm = bank + "\n[ddl_storm]\nper_minute = 3000\nkinds = { truncate = 1, add_column = 1 }\n"
    balances: dict[int, Decimal] = {}
    sums = set()
    records = list(generate_records(parse_scenario(storm, "bank-storm.toml"), 1, 900))
    assert sum(type(r) is FeedDDL for r in records) > 20
    for record in records:
        if type(record) is FeedRow and record.row.table.table == "accounts":
            assert record.row.after is not None
            balances[record.row.after["id"]] = Decimal(record.row.after["balance"])
        elif type(record) is FeedRow:
            sums.add(sum(balances.values()))  # a transfer's insert comes after its updates
        elif type(record) is FeedDDL and _truncates(record, "accounts"):
            balances.clear()
    assert len(sums) == 1


def _truncates(record: FeedDDL, table: str) -> bool:
    ddl = record.ddl
    return ddl.ddl_type is DDLType.TRUNCATE and ddl.table is not None and ddl.table.table == table
