"""The independent reader: DuckDB loads every CSV file of a play's storage folder with the
column names of its table version's schema file, and the rows are the feed's operations, in
commit order per table, with their key and text values as the feed holds them."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.eventsink.storage.support import KIND, counts, demo_feed, play, stored_rows
from tisink.model.mysqltypes import TypeFamily

duckdb = pytest.importorskip("duckdb")

HEAD = ["op", "tbl", "db", "commit_ts"]


def _schema_columns(root: Path, schema: str, table: str, version: int) -> list[str]:
    (path,) = (root / schema / table / "meta").glob(f"schema_{version}_*.json")
    return [c["ColumnName"] for c in orjson.loads(path.read_bytes())["TableColumns"]]


def _duckdb_rows(root: Path) -> dict[str, list[dict[str, Any]]]:
    """Per table, every row DuckDB reads, in directory and file order."""
    tables: dict[str, list[dict[str, Any]]] = defaultdict(list)
    connection = duckdb.connect()
    files = sorted(root.glob("*/*/*/*/CDC*.csv"), key=lambda p: (p.parts[-5:-1], p.name))
    assert files
    for path in files:
        schema, table, version, _date = path.parts[-5:-1]
        names = HEAD + _schema_columns(root, schema, table, int(version))
        relation = connection.read_csv(
            str(path),
            header=False,
            names=names,
            delimiter=",",
            quotechar='"',
            escapechar='"',
            na_values=["\\N"],
            all_varchar=True,
        )
        rows = relation.fetchall()
        tables[f"{schema}.{table}"].extend(dict(zip(names, row, strict=True)) for row in rows)
    return tables


def test_duckdb_reads_the_feed_back(tmp_path: Path) -> None:
    feed = demo_feed(tmp_path, 4000)
    out = tmp_path / "out"
    summary = play(feed, f"file://{out}?protocol=csv&date-separator=day&include-commit-ts=true")
    assert summary["verified"] is True
    expected = stored_rows(feed)
    read = _duckdb_rows(out)
    assert Counter({key: n for key, n in counts(expected).items()}) == Counter(
        (table, row["op"]) for table, rows in read.items() for row in rows
    )
    by_table: dict[str, list[Any]] = defaultdict(list)
    for row in expected:
        by_table[row.table.qualified_name].append(row)
    checked_texts = 0
    for table, rows in by_table.items():
        got = read[table]
        assert [int(r["commit_ts"]) for r in got] == [row.commit_ts for row in rows], table
        for want, have in zip(rows, got, strict=True):
            assert have["op"] == KIND[want.op.value]
            assert (have["tbl"], have["db"]) == (want.table.table, want.table.schema)
            image = want.before if want.after is None else want.after
            assert image is not None
            for column in want.table.stored_columns:
                value = image.get(column.name)
                if value is None:
                    assert have[column.name] is None, (table, column.name)
                elif column.family in (TypeFamily.STRING, TypeFamily.INT, TypeFamily.BIGINT):
                    assert have[column.name] == str(value), (table, column.name)
                    checked_texts += 1
    assert checked_texts > 1000
