"""``check`` on hand-built SQLite databases: what it reports equal, and what it names when the
actual side differs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.tisink.check.orders import ACTUAL_COLUMNS, ACTUAL_ROWS, EXPECTED_ROWS, ORDER_COLUMNS
from tests.tisink.check.sqlite_dbs import Table, build, execute
from tisink.check import CheckOptions, ExpectedSource, Naming, check, render_text


def orders(columns=ORDER_COLUMNS, rows=EXPECTED_ROWS, name="shop.orders") -> Table:
    return Table(name, columns, rows=list(rows))


def run(expected: str, actual: str, **kwargs):
    report = check(CheckOptions(ExpectedSource(url=expected), actual, **kwargs))
    return report, render_text(report)


@pytest.fixture
def expected_url(tmp_path: Path) -> str:
    return build(tmp_path / "expected.db", [orders()])


def test_equal_values_in_other_representations_are_equal(tmp_path, expected_url):
    actual = build(tmp_path / "actual.db", [orders(ACTUAL_COLUMNS, ACTUAL_ROWS)], meta=False)
    report, text = run(expected_url, actual)
    assert report.ok, text
    assert text.endswith("EQUAL: 1 tables, 2 rows")


def test_one_value_differs_names_table_key_column_and_values(tmp_path, expected_url):
    actual = build(tmp_path / "actual.db", [orders()])
    execute(actual, 'UPDATE "shop.orders" SET amount = ? WHERE id = 1', "1.25")
    report, text = run(expected_url, actual)
    assert not report.ok
    assert "shop.orders key (id=1): column amount: expected 1.50, actual 1.25" in text
    (table,) = report.tables
    assert (table.differing, table.only_expected, table.only_actual) == (1, 0, 0)
    assert report.to_dict()["differences"] == [
        {
            "table": "shop.orders",
            "row": "key (id=1)",
            "column": "amount",
            "expected": "1.50",
            "actual": "1.25",
        }
    ]


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("created", "2024-01-02 03:04:05.001"),
        ("doc", '{"a":[1,2],"b":3}'),
        ("state", "new"),
        ("tags", "a,b,c"),
        ("payload", b"\x00\xffaB"),
        ("ratio", 1.2),
        ("note", None),
        ("flags", 4),
    ],
)
def test_each_kind_of_changed_value_is_found(tmp_path, expected_url, column, value):
    actual = build(tmp_path / "actual.db", [orders()])
    execute(actual, f'UPDATE "shop.orders" SET {column} = ? WHERE id = 1', value)
    report, text = run(expected_url, actual)
    assert [d.column for d in report.differences] == [column], text


def test_missing_and_extra_rows(tmp_path, expected_url):
    actual = build(tmp_path / "actual.db", [orders()])
    execute(actual, 'DELETE FROM "shop.orders" WHERE id = 2')
    execute(actual, 'INSERT INTO "shop.orders" (id, amount) VALUES (3, ?)', "9.99")
    report, text = run(expected_url, actual)
    (table,) = report.tables
    assert (table.only_expected, table.only_actual, table.differing) == (1, 1, 0)
    assert "shop.orders key (id=2): only in expected" in text
    assert "shop.orders key (id=3): only in actual" in text
    assert "2 rows expected, 2 actual" in text


def test_column_order_and_extra_and_missing_columns(tmp_path, expected_url):
    moved = [ORDER_COLUMNS[0], ORDER_COLUMNS[2], ORDER_COLUMNS[1], *ORDER_COLUMNS[3:-1]]
    moved.append(("extra", "TEXT", "text"))
    rows = [(r[0], r[2], r[1], *r[3:-1], "more") for r in EXPECTED_ROWS]
    actual = build(tmp_path / "actual.db", [orders(moved, rows)])
    report, text = run(expected_url, actual)
    (table,) = report.tables
    assert table.differing == 0
    assert table.columns == [
        "missing on the actual side: note",
        "only on the actual side: extra",
        "order differs: expected (id, amount, created, paid, doc, state, tags, flags, "
        "payload, ratio, day, span, qty), actual (id, created, amount, paid, doc, state, "
        "tags, flags, payload, ratio, day, span, qty)",
    ]
    assert "  columns: missing on the actual side: note" in text


def test_keyless_table_is_a_multiset(tmp_path):
    columns = (("a", "INTEGER", "int(11)"), ("b", "TEXT", "decimal(5,1)"))
    rows = [(1, "1.0"), (1, "1.0"), (2, "2.5")]
    expected = build(tmp_path / "e.db", [Table("s.log", columns, (), rows)])
    same = build(tmp_path / "same.db", [Table("s.log", columns, (), [(2, "2.50"), (1, 1), (1, 1)])])
    report, text = run(expected, same)
    assert report.ok, text
    assert report.tables[0].compared_by == "multiset"
    once = build(
        tmp_path / "once.db", [Table("s.log", columns, (), [(1, "1.0"), (2, "2.5"), (3, "3")])]
    )
    report, text = run(expected, once)
    assert (report.tables[0].only_expected, report.tables[0].only_actual) == (1, 1)
    assert "s.log row (a=1, b=1.0): only in expected" in text
    assert "s.log row (a=3, b=3): only in actual" in text


def test_tables_missing_extra_filtered_and_mapped(tmp_path, expected_url):
    other = Table("shop.items", (("id", "INTEGER", "int"),), rows=[(1,)])
    expected = build(tmp_path / "e.db", [orders(), other])
    actual = build(tmp_path / "a.db", [orders(), Table("shop.more", (("id", "INTEGER", "int"),))])
    report, text = run(expected, actual)
    assert "shop.items: missing on the actual side (1 rows expected)" in text
    assert "shop.more: only on the actual side" in text
    assert text.endswith("DIFFERENT: 2 of 3 tables differ")
    report, text = run(expected, actual, naming=Naming(tables=("shop.o*",)))
    assert report.ok, text
    report, text = run(expected, actual, naming=Naming(ignore_tables=("shop.items", "shop.more")))
    assert report.ok, text
    renamed = build(
        tmp_path / "r.db", [orders(name="sales.orders"), Table("items", other.columns, rows=[(1,)])]
    )
    naming = Naming(schema_map={"shop": "sales"}, table_map={"shop.items": "main.items"})
    report, text = run(expected, renamed, naming=naming)
    assert report.ok, text


def test_max_differences_limits_the_list_not_the_counts(tmp_path, expected_url):
    actual = build(tmp_path / "actual.db", [orders()])
    execute(actual, 'UPDATE "shop.orders" SET qty = qty + 1, note = ?', "y")
    report, text = run(expected_url, actual, max_differences=1)
    assert report.total_differences == 4
    assert len(report.differences) == 1
    assert "first 1 of 4 differences:" in text
    assert json.loads(json.dumps(report.to_dict()))["total_differences"] == 4


def test_without_meta_table_types_come_from_the_sql_types(tmp_path):
    columns = (("id", "INTEGER", ""), ("amount", "NUMERIC(10, 2)", ""), ("at", "DATETIME", ""))
    expected = build(
        tmp_path / "e.db",
        [Table("s.t", columns, rows=[(1, 1.5, "2024-01-01 10:00:00")])],
        meta=False,
    )
    plain = (("id", "", ""), ("amount", "", ""), ("at", "", ""))
    actual = build(
        tmp_path / "a.db",
        [Table("s.t", plain, rows=[("1", "1.50", "2024-01-01T10:00:00.000")])],
        meta=False,
    )
    report, text = run(expected, actual)
    assert report.ok, text
