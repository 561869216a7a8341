"""``check`` on hand-built SQLite databases: what it reports equal, and what it names when the
actual side differs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.check.orders import ACTUAL_COLUMNS, ACTUAL_ROWS, EXPECTED_ROWS, ORDER_COLUMNS
from tests.check.sqlite_dbs import Table, build, execute
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
    assert "shop.orders key (id=1): column amount: expected '1.50', actual '1.25'" in text
    (table,) = report.tables
    assert (table.differing, table.only_expected, table.only_actual) == (1, 0, 0)
    assert report.to_dict()["differences"] == [
        {
            "table": "shop.orders",
            "row": "key (id=1)",
            "column": "amount",
            "expected": "'1.50'",
            "actual": "'1.25'",
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


def test_extra_and_missing_columns(tmp_path, expected_url):
    kept = [*ORDER_COLUMNS[:-1], ("extra", "TEXT", "text")]
    rows = [(*r[:-1], "more") for r in EXPECTED_ROWS]
    actual = build(tmp_path / "actual.db", [orders(kept, rows)])
    report, text = run(expected_url, actual)
    (table,) = report.tables
    assert table.differing == 0
    assert table.columns == [
        "missing on the actual side: note",
        "only on the actual side: extra",
    ]
    assert "  columns: missing on the actual side: note" in text


MOVED_ORDER = (
    "order differs: expected (id, amount, created, paid, doc, state, tags, flags, payload, "
    "ratio, day, span, qty, note), actual (id, created, amount, paid, doc, state, tags, flags, "
    "payload, ratio, day, span, qty, note)"
)


def test_column_order_is_a_note_unless_strict(tmp_path, expected_url):
    """Issue 44 item 14: columns match by name (as sync-diff-inspector's), so the same rows
    in another column order are equal with a note; ``strict_column_order`` makes it a
    difference."""
    moved = [ORDER_COLUMNS[0], ORDER_COLUMNS[2], ORDER_COLUMNS[1], *ORDER_COLUMNS[3:]]
    rows = [(r[0], r[2], r[1], *r[3:]) for r in EXPECTED_ROWS]
    actual = build(tmp_path / "actual.db", [orders(moved, rows)])
    report, text = run(expected_url, actual)
    assert report.ok, text
    (table,) = report.tables
    assert table.notes == [f"column {MOVED_ORDER}; compared by name"]
    assert text.endswith("EQUAL: 1 tables, 2 rows")
    report, text = run(expected_url, actual, strict_column_order=True)
    assert not report.ok
    (table,) = report.tables
    assert (table.columns, table.differing) == ([MOVED_ORDER], 0)
    assert text.endswith("DIFFERENT: 1 of 1 tables differ")


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
    assert "s.log row (a=1, b='1.0'): only in expected" in text
    assert "s.log row (a=3, b='3'): only in actual" in text


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


def test_no_column_in_common_is_a_difference_listing_both_sides(tmp_path, expected_url):
    """Issue 44 item 11: not a SQL error, but a table that differs, with both column lists."""
    other = (("ref", "INTEGER", "int(11)"), ("total", "TEXT", "decimal(10,2)"))
    actual = build(tmp_path / "actual.db", [Table("shop.orders", other, ("ref",), [(1, "1.50")])])
    report, text = run(expected_url, actual)
    assert not report.ok
    (table,) = report.tables
    names = ", ".join(name for name, _, _ in ORDER_COLUMNS)
    assert table.columns == [f"no column in common: expected ({names}), actual (ref, total)"]
    assert (table.expected_rows, table.actual_rows, table.compared_by) == (2, 1, "none")
    assert "shop.orders: different: rows not compared (2 expected, 1 actual)" in text


@pytest.mark.parametrize("side", ["actual", "expected"])
def test_text_that_is_not_utf8_is_a_difference_naming_key_and_column(tmp_path, side):
    """Issue 44 item 12: VARBINARY stored in a TEXT column (on either side) holding bytes
    that are no UTF-8: a difference of that key and column, the other rows still compared."""
    raw = b"\xff\xfeA"
    urls = {}
    for name in ("actual", "expected"):
        stored = "TEXT" if name == side else "BLOB"
        columns = (("id", "INTEGER", "int(11)"), ("b", stored, "varbinary(8)"))
        urls[name] = build(tmp_path / f"{name}.db", [Table("s.t", columns, rows=[(2, b"ok")])])
        execute(urls[name], f'INSERT INTO "s.t" VALUES (1, CAST(? AS {stored}))', raw)
    report, text = run(urls["expected"], urls["actual"])
    assert not report.ok, text
    (difference,) = report.differences
    assert (difference.table, difference.row, difference.column) == ("s.t", "key (id=1)", "b")
    shown = {"actual": difference.actual, "expected": difference.expected}
    assert shown[side] == "text that is not UTF-8: 0xfffe41"
    assert report.tables[0].differing == 1


def test_a_key_of_text_that_is_not_utf8_sorts_and_differs(tmp_path):
    columns = (("k", "TEXT", "varchar(8)"), ("v", "INTEGER", "int(11)"))
    expected = build(tmp_path / "e.db", [Table("s.t", columns, ("k",), [("a", 1)])])
    actual = build(tmp_path / "a.db", [Table("s.t", columns, ("k",), [("a", 1)])])
    execute(actual, 'INSERT INTO "s.t" VALUES (CAST(? AS TEXT), 2)', b"\xff")
    report, text = run(expected, actual, chunk_rows=1)
    assert "s.t key (k=text that is not UTF-8: 0xff): only in actual" in text
    assert (report.tables[0].only_actual, report.tables[0].differing) == (1, 0)


@pytest.mark.parametrize(
    ("mysql_type", "expected", "actual", "equal"),
    [
        ("datetime", "2024-01-02 03:04:57", "2024-01-02 03:04:56.9", True),
        ("datetime", "2024-01-02 03:04:56", "2024-01-02 03:04:56.9", False),
        ("timestamp(3)", "2024-01-02 03:04:05.456", "2024-01-02 03:04:05.455999", True),
        ("timestamp(3)", "2024-01-02 03:04:05.455", "2024-01-02 03:04:05.455999", False),
        ("datetime", "2025-01-01 00:00:00", "2024-12-31 23:59:59.5", True),
        ("time", "-00:00:02", "-00:00:01.5", True),
    ],
)
def test_fractions_past_the_precision_round_as_mysql_stores_them(
    tmp_path, mysql_type, expected, actual, equal
):
    """Issue 44 item 13: ``:56.9`` in a DATETIME is ``:57``, not ``:56``."""
    columns = (("id", "INTEGER", "int(11)"), ("at", "TEXT", mysql_type))
    expected_url = build(tmp_path / "e.db", [Table("s.t", columns, rows=[(1, expected)])])
    actual_url = build(tmp_path / "a.db", [Table("s.t", columns, rows=[(1, actual)])])
    report, text = run(expected_url, actual_url)
    assert report.ok is equal, text


def test_texts_are_quoted_so_an_empty_one_shows(tmp_path):
    """Issue 44 item 23: ``expected '', actual NULL``, not ``expected , actual NULL``."""
    columns = (("id", "INTEGER", "int(11)"), ("name", "TEXT", "varchar(8)"))
    expected = build(tmp_path / "e.db", [Table("s.t", columns, rows=[(1, ""), (2, "a'b\nc")])])
    actual = build(tmp_path / "a.db", [Table("s.t", columns, rows=[(1, None), (2, "")])])
    report, text = run(expected, actual)
    assert "s.t key (id=1): column name: expected '', actual NULL" in text
    assert "s.t key (id=2): column name: expected 'a\\'b\\nc', actual ''" in text
    assert report.to_dict()["differences"][0]["expected"] == "''"
