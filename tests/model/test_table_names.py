"""Issue 44 item 20: a NUL in a schema, table or column name is refused in one line naming the
table (MySQL takes no U+0000 in an identifier), wherever the schema comes from."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from tisink.cli import app
from tisink.model.errors import SchemaError
from tisink.model.table import ColumnInfo, TableInfo


@pytest.mark.parametrize(
    ("schema", "table", "column", "kind"),
    [
        ("s\x00", "t", "id", "schema"),
        ("s", "a\x00b", "id", "table"),
        ("s", "t", "i\x00d", "column"),
    ],
)
def test_a_nul_in_a_name_is_refused_naming_the_table(
    schema: str, table: str, column: str, kind: str
) -> None:
    with pytest.raises(SchemaError) as refused:
        TableInfo(schema, table, 1, 1, (ColumnInfo(column, "int"),))
    message = str(refused.value)
    assert message.startswith(f"table {schema!r}.{table!r}: the {kind} name ")
    assert "\x00" not in message


def test_a_feed_with_a_nul_table_name_is_refused_in_one_line(tmp_path: Path) -> None:
    table = {
        "schema": "s",
        "table": "a\x00b",
        "tableID": 100,
        "version": 5,
        "columns": [{"name": "id", "dataType": {"mysqlType": "int"}, "nullable": False}],
        "indexes": [{"name": "primary", "primary": True, "unique": True, "columns": ["id"]}],
    }
    ddl = {"type": "ddl", "commitTs": 5, "startTs": 4, "ddlType": "CREATE", "query": "CREATE"}
    feed = tmp_path / "nul.jsonl"
    feed.write_bytes(orjson.dumps({**ddl, "table": table}) + b"\n")
    uri = f"file://{tmp_path}/out?protocol=csv"
    result = CliRunner().invoke(
        app, ["play", "--engine", "inline", "--feed", str(feed), "--sink-uri", uri]
    )
    refused = [line for line in result.output.splitlines() if "play refused" in line]
    assert result.exit_code == 2, result.output
    assert refused == [
        "play refused: nul.jsonl:1: bad table object: table 's'.'a\\x00b': the table name "
        "'a\\x00b' holds NUL (U+0000), which no MySQL identifier may hold"
    ]
    assert "embedded null" not in result.output
