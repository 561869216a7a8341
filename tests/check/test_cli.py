"""``tisink check`` through Typer's runner: exit codes, the text report, ``--summary-json``, and
messages that never show a password."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.check.sqlite_dbs import Table, build, execute
from tisink.cli import app

COLUMNS = (("id", "INTEGER", "bigint(20)"), ("amount", "TEXT", "decimal(10,2)"))
ROWS = [(1, "1.50"), (42, "1.50")]


def check(*args: str):
    return CliRunner().invoke(app, ["check", *args])


@pytest.fixture
def databases(tmp_path: Path) -> tuple[str, str]:
    expected = build(tmp_path / "expected.db", [Table("shop.orders", COLUMNS, rows=ROWS)])
    actual = build(tmp_path / "actual.db", [Table("shop.orders", COLUMNS, rows=ROWS)])
    return expected, actual


def test_equal_exits_0(databases):
    expected, actual = databases
    result = check("--expected", expected, "--actual", actual)
    assert result.exit_code == 0, result.output
    assert "shop.orders: equal (2 rows)" in result.output


def test_different_exits_1_and_writes_the_report(tmp_path, databases):
    expected, actual = databases
    execute(actual, 'UPDATE "shop.orders" SET amount = ? WHERE id = 42', "1.25")
    out = tmp_path / "out" / "report.json"
    result = check("--expected", expected, "--actual", actual, "--summary-json", str(out))
    assert result.exit_code == 1, result.output
    line = "shop.orders key (id=42): column amount: expected '1.50', actual '1.25'"
    assert line in result.output
    report = json.loads(out.read_text())
    assert report["ok"] is False
    assert report["tables"][0]["differing"] == 1
    assert report["differences"][0] == {
        "table": "shop.orders",
        "row": "key (id=42)",
        "column": "amount",
        "expected": "'1.50'",
        "actual": "'1.25'",
    }


def test_names_filters_and_maps(tmp_path, databases):
    expected, _ = databases
    actual = build(tmp_path / "sales.db", [Table("sales.orders", COLUMNS, rows=ROWS)])
    result = check("--expected", expected, "--actual", actual)
    assert result.exit_code == 1
    assert "shop.orders: missing on the actual side (2 rows expected)" in result.output
    result = check("--expected", expected, "--actual", actual, "--schema-map", "shop=sales")
    assert result.exit_code == 0, result.output
    mapped = ["--table-map", "shop.orders=sales.orders"]
    result = check("--expected", expected, "--actual", actual, *mapped, "--table", "shop.*")
    assert result.exit_code == 0, result.output
    result = check("--expected", expected, "--actual", actual, "--ignore-table", "shop.orders")
    assert result.exit_code == 0, result.output
    assert "EQUAL: 0 tables, 0 rows" in result.output


def test_nothing_to_compare_exits_2(tmp_path, databases):
    expected, actual = databases
    result = check("--expected", expected, "--actual", actual, "--table", "shop.order")
    assert result.exit_code == 2
    assert "--table shop.order: no such table on the expected side" in result.output
    empty = build(tmp_path / "empty.db", [])
    result = check("--expected", empty, "--actual", actual)
    assert result.exit_code == 2
    assert "the expected side holds no tables" in result.output


def test_max_differences(databases):
    expected, actual = databases
    execute(actual, 'UPDATE "shop.orders" SET amount = ?', "9")
    result = check("--expected", expected, "--actual", actual, "--max-differences", "1")
    assert result.exit_code == 1
    assert "first 1 of 2 differences:" in result.output


@pytest.mark.parametrize(
    "url",
    [
        "mysql://tisink:s3cret-pw@127.0.0.1:1/",
        "postgresql://tisink:s3cret-pw@127.0.0.1:1/db",
    ],
)
def test_unreachable_database_exits_2_naming_the_masked_url(databases, url):
    expected, _ = databases
    result = check("--expected", expected, "--actual", url)
    assert result.exit_code == 2, result.output
    assert "s3cret-pw" not in result.output
    assert url.replace("s3cret-pw", "xxxxx") in result.output.replace("\n", "")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--actual", "sqlite:///nothing-here.db"], "give --expected"),
        (["--expected", "sqlite:///nothing-here.db", "--actual", "x"], "not a database URL"),
        (["--expected", "sqlite:///nothing-here.db", "--actual", "sqlite:///a.db"], "no SQLite"),
        (["--expected", "missing.jsonl", "--actual", "sqlite:///a.db"], "does not exist"),
        (["--expected", "e", "--workload", "demo", "--actual", "sqlite:///a.db"], "give"),
        (["--workload", "demo", "--rows", "0", "--actual", "sqlite:///a.db"], "--rows"),
        (["--expected", "e", "--schema-map", "x", "--actual", "sqlite:///a.db"], "SOURCE=TARGET"),
    ],
)
def test_bad_input_exits_2(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    build(tmp_path / "a.db", [])
    result = check(*args)
    assert result.exit_code == 2, result.output
    assert message in result.output.replace("\n", " ")


def test_no_column_in_common_exits_1_listing_both_sides(tmp_path, databases):
    """Issue 44 item 11: a difference, not exit 2 with "near FROM: syntax error"."""
    expected, _ = databases
    other = (("ref", "INTEGER", "bigint(20)"), ("total", "TEXT", "decimal(10,2)"))
    actual = build(tmp_path / "other.db", [Table("shop.orders", other, ("ref",), ROWS)])
    result = check("--expected", expected, "--actual", actual)
    assert result.exit_code == 1, result.output
    assert "columns: no column in common: expected (id, amount), actual (ref, total)" in (
        result.output
    )


def test_column_order_is_a_note_unless_strict_column_order(tmp_path, databases):
    """Issue 44 item 14: exit 0 with a note by default, 1 with ``--strict-column-order``."""
    expected, _ = databases
    swapped = tuple(reversed(COLUMNS))
    rows = [tuple(reversed(row)) for row in ROWS]
    actual = build(tmp_path / "swapped.db", [Table("shop.orders", swapped, rows=rows)])
    result = check("--expected", expected, "--actual", actual)
    assert result.exit_code == 0, result.output
    order = "order differs: expected (id, amount), actual (amount, id)"
    assert f"note: column {order}; compared by name" in result.output
    result = check("--expected", expected, "--actual", actual, "--strict-column-order")
    assert result.exit_code == 1, result.output
    assert f"columns: {order}" in result.output
