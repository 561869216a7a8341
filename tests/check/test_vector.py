"""``tisink check`` on VECTOR columns: a workload of VECTOR(3), VECTOR(8) and a VECTOR with no
dimension count, applied by tisink's SQL applier to SQLite and to PostgreSQL, is EQUAL to the
workload; one element changed to the next float32 is DIFFERENT, naming the table, the key and
the column; an element changed by less than float32 can tell is still EQUAL (values compare as
TiDB prints them)."""

from __future__ import annotations

import json
import sqlite3
import struct
from pathlib import Path

import psycopg
import pytest
from typer.testing import CliRunner

from tisink.cli import app

WORKLOAD = """name = "vectors"
description = "VECTOR columns of three shapes"
rows = 300
rate = 200
start = "2024-01-01T00:00:00Z"
txn_size = [1, 4]
mix = { insert = 0.6, update = 0.3, delete = 0.1 }
null_ratio = 0.1

[[tables]]
schema = "vec"
name = "emb"
primary = ["id"]
columns = [
  { name = "id", type = "bigint", nullable = false },
  { name = "e3", type = "vector(3)" },
  { name = "e8", type = "vector(8)" },
  { name = "e", type = "vector" },
]
"""


def next_float32(value: float) -> float:
    """The float32 just above ``value``'s float32."""
    (bits,) = struct.unpack("<I", struct.pack("<f", value))
    step = 1 if value >= 0 else -1
    return float(struct.unpack("<f", struct.pack("<I", bits + step))[0])


def run(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.fixture
def workload(tmp_path: Path) -> list[str]:
    path = tmp_path / "vectors.toml"
    path.write_text(WORKLOAD, encoding="utf-8")
    return ["--workload", str(path), "--seed", "11"]


def played(workload: list[str], url: str) -> None:
    result = run("play", "--engine", "inline", *workload, "--sink-uri", url)
    assert result.exit_code == 0, result.output
    result = run("check", *workload, "--actual", url)
    assert result.exit_code == 0, result.output
    assert "vec.emb: equal" in result.output


def test_sqlite_vectors_equal_then_one_element_different(tmp_path, workload):
    url = f"sqlite:///{tmp_path / 'consumer.db'}"
    played(workload, url)
    with sqlite3.connect(tmp_path / "consumer.db") as conn:
        row_id, text = conn.execute(
            'SELECT id, e8 FROM "vec.emb" WHERE e8 IS NOT NULL ORDER BY id LIMIT 1'
        ).fetchone()
        elements = json.loads(text)
        # a double a hair away, the same float32: TiDB would print the same vector
        nudged = [*elements[:2], elements[2] + abs(elements[2]) * 1e-12, *elements[3:]]
        conn.execute('UPDATE "vec.emb" SET e8 = ? WHERE id = ?', (json.dumps(nudged), row_id))
    conn.close()
    result = run("check", *workload, "--actual", url)
    assert result.exit_code == 0, result.output

    with sqlite3.connect(tmp_path / "consumer.db") as conn:
        planted = [*elements[:2], next_float32(elements[2]), *elements[3:]]
        conn.execute('UPDATE "vec.emb" SET e8 = ? WHERE id = ?', (json.dumps(planted), row_id))
    conn.close()
    result = run("check", *workload, "--actual", url)
    assert result.exit_code == 1, result.output
    assert f"vec.emb key (id={row_id}): column e8: expected '{text}', actual " in result.output
    assert "DIFFERENT" in result.output


def test_postgresql_vectors_equal_then_one_element_different(fresh_postgresql, workload):
    played(workload, fresh_postgresql)
    with psycopg.connect(fresh_postgresql) as conn:
        kind = conn.execute(
            "SELECT data_type FROM information_schema.columns "
            "WHERE table_schema = 'vec' AND table_name = 'emb' AND column_name = 'e3'"
        ).fetchone()
        assert kind == ("jsonb",)
        row_id, elements = conn.execute(
            "SELECT id, e3 FROM vec.emb WHERE e3 IS NOT NULL ORDER BY id LIMIT 1"
        ).fetchone()
        planted = json.dumps(next_float32(elements[1]))
        conn.execute(
            "UPDATE vec.emb SET e3 = jsonb_set(e3, '{1}', %s::jsonb) WHERE id = %s",
            (planted, row_id),
        )
    result = run("check", *workload, "--actual", fresh_postgresql)
    assert result.exit_code == 1, result.output
    assert f"vec.emb key (id={row_id}): column e3: expected " in result.output
    assert "DIFFERENT" in result.output
