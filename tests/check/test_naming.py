"""Tables whose names differ only in where the dot falls (```s.dot`.ted`` and ``s.dot.ted``)
stay two tables in the oracle, in tisink's sinks and in the comparison: a consumer wrong about
one of them is DIFFERENT."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import psycopg
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from tisink.check.naming import Naming, split_name, tidb_name
from tisink.cli import app
from tisink.eventsink.sql.sqlite import table_name
from tisink.feed.format.writer import FeedWriter
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent
from tisink.model.table import ColumnInfo, IndexInfo, make_table

PK = IndexInfo("primary", ("id",), unique=True, primary=True)
COLUMNS = [ColumnInfo("id", "int", nullable=False), ColumnInfo("v", "int")]
DOTTED_TABLE = make_table("s", "dot.ted", 1, 1, COLUMNS, [PK])
DOTTED_SCHEMA = make_table("s.dot", "ted", 2, 1, COLUMNS, [PK])


@pytest.fixture
def feed(tmp_path: Path) -> Path:
    """Both tables created, then rows 1..3 in each with different values."""
    path = tmp_path / "dots.jsonl"
    with FeedWriter(path) as writer:
        for ts, info in ((10, DOTTED_TABLE), (11, DOTTED_SCHEMA)):
            writer.write_ddl(DDLEvent(ts, DDLType.CREATE, "CREATE TABLE", info, start_ts=ts - 1))
        for ts, info, factor in ((20, DOTTED_TABLE, 1), (21, DOTTED_SCHEMA, 100)):
            for key in (1, 2, 3):
                image = {"id": key, "v": key * factor}
                writer.write_row(RowChangedEvent(ts - 1, ts, info, after=image))
        writer.write_resolved(30)
    return path


def play_into(url: str, feed: Path) -> None:
    args = ["play", "--engine", "inline", "--feed", str(feed), "--sink-uri", url]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output


def check(feed: Path, actual: str):
    return CliRunner().invoke(app, ["check", "--expected", str(feed), "--actual", actual])


def test_a_wrong_table_of_two_dotted_names_is_different_in_sqlite(tmp_path, feed):
    path = tmp_path / "consumer.db"
    play_into(f"sqlite:///{path}", feed)
    result = check(feed, f"sqlite:///{path}")
    assert result.exit_code == 0, result.output
    with sqlite3.connect(path) as conn:  # the consumer lost one update of s.dot's table
        conn.execute(f'UPDATE "{table_name("s.dot", "ted")}" SET v = 2 WHERE id = 2')
    conn.close()
    result = check(feed, f"sqlite:///{path}")
    assert result.exit_code == 1, result.output
    assert "`s.dot`.ted key (id=2): column v: expected 200, actual 2" in result.output


def test_a_wrong_table_of_two_dotted_names_is_different_in_postgresql(feed, fresh_postgresql):
    play_into(fresh_postgresql, feed)
    assert check(feed, fresh_postgresql).exit_code == 0
    with psycopg.connect(fresh_postgresql, autocommit=True) as conn:
        conn.execute('UPDATE "s"."dot.ted" SET v = 20 WHERE id = 3')
    result = check(feed, fresh_postgresql)
    assert result.exit_code == 1, result.output
    assert "s.dot.ted key (id=3): column v: expected 3, actual 20" in result.output


NAME = st.text(st.sampled_from("ab.`"), max_size=5)


@given(NAME, NAME, NAME, NAME)
def test_tidb_names_never_collide_and_read_back(s1: str, t1: str, s2: str, t2: str) -> None:
    assert split_name(tidb_name(s1 or "s", t1 or "t")) == (s1 or "s", t1 or "t")
    same = tidb_name(s1 or "s", t1 or "t") == tidb_name(s2 or "s", t2 or "t")
    assert same == ((s1 or "s", t1 or "t") == (s2 or "s", t2 or "t"))


def test_schema_map_keeps_a_dotted_schema_whole() -> None:
    naming = Naming(schema_map={"s.dot": "copy"})
    assert naming.target("`s.dot`.ted") == "copy.ted"
    assert naming.target("s.dot.ted") == "s.dot.ted"
