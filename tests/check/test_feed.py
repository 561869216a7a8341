"""``tisink check --expected FEED`` and ``--workload``: the feed applied to a temporary SQLite
is compared with a consumer's database; here the consumer is ``tisink play`` into SQLite."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tisink.cli import app
from tisink.feed.workload import generate_feed

ROWS = 600


def play_into(tmp_path: Path, *source: str) -> str:
    url = f"sqlite:///{tmp_path / 'consumer.db'}"
    args = ["play", "--engine", "inline", *source, "--sink-uri", url]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return url


def check(*args: str):
    return CliRunner().invoke(app, ["check", *args])


@pytest.fixture(scope="module")
def feed(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("feed") / "all-types.jsonl"
    generate_feed("all-types", 7, ROWS, path)
    return path


def mutate_one_row(url: str) -> int:
    """Change one DECIMAL of the consumer's all-types table; return the row's id."""
    with sqlite3.connect(url.removeprefix("sqlite:///")) as conn:
        (row_id,) = conn.execute('SELECT min(id) FROM "types.all_types"').fetchone()
        conn.execute('UPDATE "types.all_types" SET t_decimal = ? WHERE id = ?', ("-1.5", row_id))
    conn.close()
    return int(row_id)


def test_feed_against_its_play_is_equal_then_different(tmp_path, feed):
    actual = play_into(tmp_path, "--feed", str(feed))
    result = check("--expected", str(feed), "--actual", actual)
    assert result.exit_code == 0, result.output
    assert "types.all_types: equal" in result.output
    row_id = mutate_one_row(actual)
    result = check("--expected", str(feed), "--actual", actual)
    assert result.exit_code == 1, result.output
    assert f"types.all_types key (id={row_id}): column t_decimal: expected " in result.output
    assert "actual '-1.5'" in result.output


def test_workload_against_its_play_is_equal_then_different(tmp_path):
    workload = ["--workload", "all-types", "--seed", "3", "--rows", str(ROWS)]
    actual = play_into(tmp_path, *workload)
    result = check(*workload, "--actual", actual)
    assert result.exit_code == 0, result.output
    assert re.search(r"^EQUAL: 2 tables, \d+ rows$", result.output, re.MULTILINE)
    mutate_one_row(actual)
    result = check(*workload, "--actual", actual)
    assert result.exit_code == 1, result.output
    assert "column t_decimal" in result.output
