"""Input a sink refuses part way through a play (a name it cannot keep) ends the command as a
refusal: one "play refused" line, exit 2, the summary still written, nothing outside the target.
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from tisink.cli import app


def _feed(path: Path, schema: str, table: str) -> Path:
    info = {
        "schema": schema,
        "table": table,
        "tableID": 100,
        "version": 5,
        "columns": [{"name": "id", "dataType": {"mysqlType": "int"}, "nullable": False}],
        "indexes": [{"name": "primary", "primary": True, "unique": True, "columns": ["id"]}],
    }
    ddl = {"type": "ddl", "commitTs": 5, "startTs": 4, "ddlType": "CREATE", "query": "CREATE"}
    row = {
        "type": "dml", "op": "insert", "commitTs": 7, "startTs": 6, "schema": schema,
        "table": table, "after": {"id": 1},
    }  # fmt: skip
    path.write_bytes(orjson.dumps({**ddl, "table": info}) + b"\n" + orjson.dumps(row) + b"\n")
    return path


@pytest.mark.parametrize(("schema", "table"), [("../../esc1", "t"), ("s", "../../esc2")])
def test_a_name_outside_the_root_is_refused_with_exit_2(
    tmp_path: Path, schema: str, table: str
) -> None:
    root = tmp_path / "a" / "b" / "out"
    feed = _feed(tmp_path / "feed.jsonl", schema, table)
    summary = tmp_path / "run.json"
    result = CliRunner().invoke(
        app,
        ["play", "--engine", "inline", "--no-verify", "--feed", str(feed),
         "--sink-uri", f"file://{root}?protocol=csv", "--summary-json", str(summary)],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    refused = [line for line in result.output.splitlines() if line.startswith("play refused")]
    assert len(refused) == 1 and f"table {schema!r}.{table!r}" in refused[0], result.output
    assert "play failed" not in result.output
    assert json.loads(summary.read_text())["error"]
    written = {p.resolve() for p in tmp_path.rglob("*") if p.is_file()}
    assert all(p.is_relative_to(root.resolve()) or p.parent == tmp_path for p in written)
