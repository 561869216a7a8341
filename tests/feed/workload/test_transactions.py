"""Multi-table transactions, the bank's constant sum, templates and key-changing UPDATEs."""

from __future__ import annotations

from decimal import Decimal
from itertools import groupby
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tisink.feed.format.records import FeedRow
from tisink.feed.workload import (
    ScenarioError,
    generate_records,
    generate_table_records,
    load_scenario,
    merge_partitions,
    parse_scenario,
    record_line,
)

SEEDS = st.integers(min_value=0, max_value=2**32)
PROPERTY = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])

KEYED = """
name = "keyed"
rows = 400
[[tables]]
name = "t"
primary = ["id"]
indexes = [{ name = "uk", columns = ["code"], unique = true }]
mix = { insert = 0.4, update = 0.5, delete = 0.1 }
key_updates = 0.5
txn_size = [1, 6]
columns = [
  { name = "id", type = "int", nullable = false },
  { name = "code", type = "varchar(20)", nullable = false },
  { name = "v", type = "int" },
]
"""


def _rows(records: Any) -> list[FeedRow]:
    return [r for r in records if type(r) is FeedRow]


@given(seed=SEEDS)
@PROPERTY
def test_bank_balances_sum_the_same_after_every_transaction(seed: int) -> None:
    balances: dict[int, Decimal] = {}
    sums = []
    for _, rows in groupby(_rows(generate_records("bank", seed, 150)), lambda r: r.row.commit_ts):
        tables = []
        for record in rows:
            row = record.row
            tables.append(row.table.qualified_name)
            if row.table.table == "accounts":
                assert row.after is not None
                balances[row.after["id"]] = Decimal(row.after["balance"])
                assert balances[row.after["id"]] >= 0
        sums.append(sum(balances.values()))
        if "bank.transfers" in tables:  # a transfer: two balances and its record, together
            assert sorted(tables) == ["bank.accounts", "bank.accounts", "bank.transfers"]
    assert len(sums) > 40
    assert len(set(sums[1:])) == 1  # after the preload, every transfer keeps the sum
    assert sums[1] == sums[0]


def test_a_transfer_moves_money_between_two_accounts() -> None:
    moved = 0
    for _, group in groupby(_rows(generate_records("bank", 5, 300)), lambda r: r.row.commit_ts):
        rows = [r.row for r in group if r.row.table.table == "accounts"]
        if len(rows) == 2:
            assert rows[0].after["id"] != rows[1].after["id"]  # type: ignore[index]
            change = [Decimal(r.after["balance"]) - Decimal(r.before["balance"]) for r in rows]  # type: ignore[index]
            assert change[0] == -change[1]
            moved += change[0] != 0
    assert moved > 50


def test_partitions_of_a_multi_table_workload_merge_into_the_whole_feed() -> None:
    whole = b"".join(record_line(r) for r in generate_records("bank", 9, 300))
    parts = [generate_table_records("bank", 9, 300, [name]) for name in ("transfers", "accounts")]
    assert b"".join(record_line(r) for r in merge_partitions(parts)) == whole


@given(seed=SEEDS)
@PROPERTY
def test_keys_stay_unique_through_key_changing_updates(seed: int) -> None:
    scenario = parse_scenario(KEYED, "keyed.toml")
    live: dict[int, dict[str, Any]] = {}
    codes: set[str] = set()
    moved = 0
    for record in _rows(generate_records(scenario, seed)):
        row = record.row
        if row.before is not None:
            assert live.pop(row.before["id"]) == row.before
            codes.remove(row.before["code"])
        if row.after is not None:
            assert row.after["id"] not in live and row.after["code"] not in codes
            live[row.after["id"]] = row.after
            codes.add(row.after["code"])
        if row.before is not None and row.after is not None:
            moved += row.before["id"] != row.after["id"]
    assert moved > 10


def test_key_updates_need_a_key_and_a_share() -> None:
    no_key = KEYED.replace('primary = ["id"]\n', "").replace(", unique = true", "")
    with pytest.raises(ScenarioError, match="key_updates needs a primary or unique key"):
        parse_scenario(no_key, "k.toml")
    with pytest.raises(ScenarioError, match=r"share in 0\.\.1"):
        parse_scenario(KEYED.replace("key_updates = 0.5", "key_updates = 2"), "k.toml")


def test_a_template_makes_count_tables_with_the_spread() -> None:
    sysbench = load_scenario("sysbench")
    assert [t.name for t in sysbench.tables] == [f"sbtest{i}" for i in range(1, 17)]
    assert len({t.weight for t in sysbench.tables}) == 1
    zipf = parse_scenario(
        KEYED.replace('name = "t"', 'name = "t"\ncount = 4\nspread = "zipf"\nspread_s = 1.0'),
        "z.toml",
    )
    weights = [t.weight for t in zipf.tables]
    assert [t.qualified_name for t in zipf.tables] == [f"test.t{i}" for i in range(1, 5)]
    assert weights == sorted(weights, reverse=True) and sum(weights) == pytest.approx(1.0)
    assert weights[0] == pytest.approx(2 * weights[1])
    tables = {r.row.table.table for r in _rows(generate_records(zipf, 1, 400))}
    assert tables == {"t1", "t2", "t3", "t4"}


def test_a_transaction_part_may_name_a_template() -> None:
    text = (
        KEYED.replace('name = "t"', 'name = "t"\ncount = 3\nweight = 0')
        + """
[[tables]]
name = "log"
weight = 0
primary = ["id"]
columns = [{ name = "id", type = "bigint", nullable = false }, { name = "m", type = "text" }]

[[transactions]]
tables = ["t", "log"]
rows = [[1, 3], 2]
"""
    )
    seen = set()
    for _, group in groupby(
        _rows(generate_records(parse_scenario(text, "x.toml"), 2, 300)), lambda r: r.row.commit_ts
    ):
        names = [r.row.table.table for r in group]
        assert names.count("log") == 2 and 3 <= len(names) <= 5
        assert len({n for n in names if n != "log"}) == 1
        seen |= set(names)
    assert seen == {"t1", "t2", "t3", "log"}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ('tables = ["t", "log"]', "two or more"),
        ('tables = ["t", "t", "log"]\nrows = [1, 1, 1]', "overlap"),
        ('tables = ["t", "nope"]', "no table 'nope'"),
        ('tables = ["t", "log"]\nrows = [1]', "one entry per table"),
    ],
)
def test_bad_transactions_are_refused(change: str, message: str) -> None:
    text = (
        KEYED
        + """
[[tables]]
name = "log"
columns = [{ name = "m", type = "text" }]

[[transactions]]
"""
        + change.replace(
            'tables = ["t", "log"]', 'tables = ["t"]', 1 if message == "two or more" else 0
        )
    )
    with pytest.raises(ScenarioError, match=message):
        parse_scenario(text, "x.toml")


@pytest.mark.parametrize("name", ["bank", "sysbench"])
def test_the_new_scenarios_are_reproducible_and_merge_from_partitions(name: str) -> None:
    scenario = load_scenario(name)
    whole = [record_line(r) for r in generate_records(scenario, 3, 400)]
    assert whole == [record_line(r) for r in generate_records(scenario, 3, 400)]
    assert whole != [record_line(r) for r in generate_records(scenario, 4, 400)]
    names = [t.name for t in scenario.tables]
    groups = [names[1::2], names[0::2]]
    parts = [generate_table_records(scenario, 3, 400, group) for group in groups]
    assert [record_line(r) for r in merge_partitions(parts)] == whole
