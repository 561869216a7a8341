"""Bounded-memory ordering: spilled runs merge into key order, and a table whose server order
is not the keys' order (keys stored as text) is still compared by key."""

from __future__ import annotations

import random

import pytest

from tests.check.sqlite_dbs import Table, build, execute
from tisink.check import CheckOptions, ExpectedSource, check
from tisink.check.ordering import OutOfOrder, in_server_order, sortable, sorted_items


def prepare(row):
    return (sortable(row[0]),), row


def chunks(rows, size):
    return [rows[i : i + size] for i in range(0, len(rows), size)]


@pytest.mark.parametrize("chunk_rows", [7, 100, 10_000])
def test_sorted_items_spills_and_merges(chunk_rows):
    rows = [(n, f"v{n}") for n in range(2_000)]
    shuffled = random.Random(1).sample(rows, len(rows))
    out = list(sorted_items(chunks(shuffled, 50), prepare, chunk_rows))
    assert [row for _, row in out] == rows


def test_sorted_items_keeps_an_ordered_stream_in_one_run():
    rows = [(n, None) for n in range(500)]
    assert [row for _, row in sorted_items(chunks(rows, 10), prepare, 20)] == rows


def test_in_server_order_refuses_a_step_back():
    assert len(list(in_server_order([[(1,), (1,), (2,)]], prepare))) == 3
    with pytest.raises(OutOfOrder):
        list(in_server_order([[(1,), (3,)], [(2,)]], prepare))


def test_text_keys_are_compared_in_key_order(tmp_path):
    rows = [(n, f"{n}.50") for n in range(1, 3_001)]
    typed = (("id", "INTEGER", "int(11)"), ("amount", "TEXT", "decimal(10,2)"))
    as_text = (("id", "TEXT", "int(11)"), ("amount", "REAL", "decimal(10,2)"))
    expected = build(tmp_path / "e.db", [Table("s.t", typed, rows=rows)])
    actual = build(
        tmp_path / "a.db", [Table("s.t", as_text, rows=[(str(n), n + 0.5) for n, _ in rows])]
    )
    options = CheckOptions(ExpectedSource(url=expected), actual, chunk_rows=256)
    report = check(options)
    assert report.ok, report.to_dict()
    execute(actual, 'UPDATE "s.t" SET amount = 0 WHERE id = ?', "999")
    execute(actual, 'DELETE FROM "s.t" WHERE id = ?', "10")
    report = check(options)
    assert [d.text() for d in report.differences] == [
        "s.t key (id=10): only in expected",
        "s.t key (id=999): column amount: expected '999.50', actual 0.0",
    ]
