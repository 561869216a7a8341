"""``tisink check`` with MariaDB and PostgreSQL: a consumer's tables in native types of their
own (DECIMAL as text, DATETIME as VARCHAR, JSON as jsonb, SET as an array, TIME as an
interval) equal the expected SQLite; one changed value is named; and a workload played by
tisink's SQL applier into each server equals the workload itself."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import psycopg
import pytest
from psycopg.types.json import Jsonb
from typer.testing import CliRunner

from tests.check.orders import EXPECTED_ROWS, ORDER_COLUMNS
from tests.check.sqlite_dbs import Table, build
from tests.db_servers import mariadb_connect
from tisink.check import CheckOptions, ExpectedSource, check, render_text
from tisink.cli import app

MARIADB_TABLE = """CREATE TABLE shop.orders (
    id BIGINT PRIMARY KEY, amount VARCHAR(20), created VARCHAR(40), paid DATETIME,
    doc JSON, state VARCHAR(10), tags SET('a','b','c'), flags BIT(8), payload VARBINARY(16),
    ratio DOUBLE, day DATETIME, span TIME(2), qty VARCHAR(20), note VARCHAR(10))"""
MARIADB_ROWS = [
    (1, "1.5", "2024-01-02T03:04:05", dt.datetime(2024, 1, 2, 3, 4, 5), '{"b": 2, "a": [1, 2]}',
     "paid", "c,a", 5, b"\x00\xffab", 1.1, dt.datetime(2024, 1, 2), "-838:59:59", "7", "x"),
    (2, "0", None, None, "null", "new", "", 0, "café".encode(), 0.5, None, "00:00:01.5", "0",
     None),
]  # fmt: skip

POSTGRESQL_TABLE = """CREATE TABLE shop.orders (
    id text PRIMARY KEY, amount numeric(12, 4), created timestamp(3), paid timestamptz,
    doc jsonb, state text, tags text[], flags integer, payload bytea, ratio real, day date,
    span interval, qty bigint, note varchar(10))"""
POSTGRESQL_INSERT = (
    "INSERT INTO shop.orders VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)
UTC_PLUS_2 = dt.timezone(dt.timedelta(hours=2))
POSTGRESQL_ROWS = [
    ("1", Decimal("1.5"), dt.datetime(2024, 1, 2, 3, 4, 5),
     dt.datetime(2024, 1, 2, 5, 4, 5, tzinfo=UTC_PLUS_2), Jsonb({"a": [1, 2], "b": 2.0}),
     "paid", ["c", "a"], 5, b"\x00\xffab", 1.1, dt.date(2024, 1, 2),
     -dt.timedelta(hours=838, minutes=59, seconds=59), 7, "x"),
    ("2", Decimal("0"), None, None, Jsonb(None), "new", [], 0, "café".encode(), 0.5,
     None, dt.timedelta(seconds=1.5), 0, None),
]  # fmt: skip


@pytest.fixture
def expected(tmp_path: Path) -> str:
    return build(
        tmp_path / "expected.db", [Table("shop.orders", ORDER_COLUMNS, rows=EXPECTED_ROWS)]
    )


def compare(expected: str, actual: str):
    report = check(CheckOptions(ExpectedSource(url=expected), actual))
    return report, render_text(report)


def fill_mariadb(url: str) -> None:
    conn = mariadb_connect(url)
    with conn.cursor() as cur:
        cur.execute("CREATE DATABASE shop")
        cur.execute(MARIADB_TABLE)
        marks = ", ".join(["%s"] * len(MARIADB_ROWS[0]))
        cur.executemany(f"INSERT INTO shop.orders VALUES ({marks})", MARIADB_ROWS)
    conn.close()


def fill_postgresql(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA shop")
        conn.execute(POSTGRESQL_TABLE)
        with conn.cursor() as cur:
            cur.executemany(POSTGRESQL_INSERT, POSTGRESQL_ROWS)


def test_mariadb_in_other_types_is_equal_then_different(expected, fresh_mariadb):
    fill_mariadb(fresh_mariadb)
    report, text = compare(expected, fresh_mariadb)
    assert report.ok, text
    conn = mariadb_connect(fresh_mariadb)
    with conn.cursor() as cur:
        cur.execute("UPDATE shop.orders SET amount = '1.25' WHERE id = 1")
    conn.close()
    report, text = compare(expected, fresh_mariadb)
    assert "shop.orders key (id=1): column amount: expected '1.50', actual '1.25'" in text
    assert "cdc-pass" not in text


def test_postgresql_in_other_types_is_equal_then_different(expected, fresh_postgresql):
    fill_postgresql(fresh_postgresql)
    report, text = compare(expected, fresh_postgresql)
    assert report.ok, text
    with psycopg.connect(fresh_postgresql, autocommit=True) as conn:
        conn.execute("UPDATE shop.orders SET created = created + interval '1 ms' WHERE id = '1'")
    report, text = compare(expected, fresh_postgresql)
    assert "cdc-pass" not in text
    assert (
        "shop.orders key (id=1): column created: expected '2024-01-02 03:04:05.000', "
        "actual 2024-01-02 03:04:05.001000"
    ) in text


def play(workload: list[str], url: str) -> None:
    played = CliRunner().invoke(app, ["play", "--engine", "inline", *workload, "--sink-uri", url])
    assert played.exit_code == 0, played.output


@pytest.mark.parametrize("server", ["fresh_mariadb", "fresh_postgresql"])
def test_workload_applied_by_tisink_equals_the_workload(server, request, tmp_path):
    """The server as the actual side, then as the expected side (its tidb_cdc.columns)."""
    url = request.getfixturevalue(server)
    workload = ["--workload", "all-types", "--seed", "5", "--rows", "400"]
    play(workload, url)
    result = CliRunner().invoke(app, ["check", *workload, "--actual", url])
    assert result.exit_code == 0, result.output
    assert "types.all_types: equal" in result.output
    sqlite = f"sqlite:///{tmp_path / 'consumer.db'}"
    play(workload, sqlite)
    result = CliRunner().invoke(app, ["check", "--expected", url, "--actual", sqlite])
    assert result.exit_code == 0, result.output
    assert "cdc-pass" not in result.output
