"""What a newcomer meets first (issue 45): output that is not a terminal keeps its lines whole,
``tisink protocols`` is one line a protocol with a view per protocol, a wrong file or value
gets one line that says what was expected, and no help shows a type for a flag."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner, Result

from tisink.bench.output import print_tables
from tisink.bench.results import BenchResult
from tisink.catalog import all_protocols, parameters
from tisink.cli import app
from tisink.codec.registry import get_protocol
from tisink.run import console

NO_COLUMNS: dict[str, str | None] = {"COLUMNS": None}


def invoke(*args: str, env: dict[str, str | None] | None = None) -> Result:
    return CliRunner().invoke(app, list(args), env=env or NO_COLUMNS)


# item 1: output that is not a terminal is not cut at 80 columns


def test_piped_width_is_columns_when_set_and_wide_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    assert console.piped_width() == console.PIPED_WIDTH > 1000
    monkeypatch.setenv("COLUMNS", "132")
    assert console.piped_width() == 132


def test_play_summary_rows_are_not_wrapped_when_piped() -> None:
    result = invoke(
        "play", "--engine", "inline", "--workload", "sysbench", "--rows", "60",
        "--sink-uri", "blackhole://",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    latency = next(line for line in result.output.splitlines() if "latency_ms" in line)
    assert "mean" in latency and "max" in latency, latency  # one line, not wrapped at 80
    assert len(latency) > 80


def test_bench_tables_keep_their_headers_when_piped(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    result = BenchResult(
        group="codec",
        case="canal-json-sysbench-rows-with-a-long-case-name",
        rows_per_s=123456.0,
        baseline="orjson.dumps of the same rows",
        baseline_rows_per_s=234567.0,
        bytes_per_row=321.5,
        p99_ms=1.25,
        note="a note long enough that an 80-column layout would have to wrap it onto two lines",
    )
    print_tables([result])
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if "case" in line)
    for name in ("rows/s", "base rows/s", "x base", "bytes/row", "p99 ms"):
        assert name in header, header
    assert "a note long enough that an 80-column layout would have to wrap it onto two lines" in out


# item 2: tisink protocols is a short table, tisink protocols NAME the view of one


def test_bare_protocols_is_one_line_a_protocol_and_says_how_to_see_one() -> None:
    result = invoke("protocols")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    specs = all_protocols()
    for spec in specs:
        rows = [line for line in lines if line.startswith(f"│ {spec.name} ")]
        assert len(rows) == 1, spec.name
        assert ", ".join(spec.encoding_formats) in rows[0]
    assert len(lines) <= len(specs) + 6  # the rows, a header, borders and the hint
    assert "tisink protocols NAME" in result.output
    assert "enable-tidb-extension" not in result.output  # no parameters in the listing


def test_one_protocol_shows_its_parameters_defaults_and_formats() -> None:
    result = invoke("protocols", "canal-json")
    assert result.exit_code == 0, result.output
    spec = get_protocol("canal-json")
    assert result.output.startswith("canal-json (encoding-format: json, default json)")
    cells = {cell.strip() for line in result.output.splitlines() for cell in line.split("│")}
    for parameter in parameters(spec):
        assert parameter.key in cells, parameter.key
    assert "content-compatible" in cells and "False" in cells
    assert "tencent-dts" not in result.output


def test_an_unknown_protocol_is_one_line_naming_the_known_ones() -> None:
    result = invoke("protocols", "canal")
    assert result.exit_code == 2
    assert result.output.count("\n") == 1, result.output
    assert result.output.startswith("protocols refused: unknown protocol 'canal'")
    for spec in all_protocols():
        assert spec.name in result.output


# item 3: a missing --schema-sql file, a .sql --feed, a feed that is not JSON, schema csv


def test_a_missing_schema_sql_file_is_said_not_to_exist(tmp_path: Path) -> None:
    missing = tmp_path / "missing.sql"
    for command in (["play", "--engine", "inline"], ["generate", "--out", "f.jsonl"]):
        result = invoke(*command, "--schema-sql", str(missing))
        assert result.exit_code == 2, result.output
        assert f"--schema-sql {missing}: the file does not exist" in result.output
        assert "needs a .sql file" not in result.output


def test_a_sql_dump_given_as_a_feed_points_to_schema_sql(tmp_path: Path) -> None:
    dump = tmp_path / "dump.sql"
    dump.write_text("-- MySQL dump\nCREATE TABLE t (id INT PRIMARY KEY);\n")
    result = invoke("play", "--engine", "inline", "--feed", str(dump), "--sink-uri", "blackhole://")
    assert result.exit_code == 2, result.output
    said = " ".join(result.output.split())
    assert f"play refused: --feed {dump}: a feed is JSON lines" in said
    assert f"use --schema-sql {dump}" in said


def test_a_feed_line_that_is_not_json_names_the_file_line_and_format(tmp_path: Path) -> None:
    feed = tmp_path / "changes.jsonl"
    feed.write_text("-- not a change record\n")
    result = invoke("play", "--engine", "inline", "--feed", str(feed), "--sink-uri", "blackhole://")
    assert result.exit_code != 0
    said = " ".join(result.output.split())
    assert "changes.jsonl:1: invalid JSON at column 2" in said
    assert "a feed is JSON lines" in said


def test_schema_csv_says_there_is_no_file_and_what_a_consumer_reads(tmp_path: Path) -> None:
    out = tmp_path / "schemas"
    result = invoke("schema", "csv", "--out", str(out))
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert said.startswith("csv has no schema file to write:")
    assert "meta/schema_" in said and "describe themselves" not in said
    assert not out.exists()  # nothing written, not even an empty folder
    json = invoke("schema", "simple", "--out", str(out))
    assert "simple (json) has no schema file to write" in json.output
    avro = " ".join(invoke("schema", "avro", "--out", str(out)).output.split())
    assert "registered in the schema registry" in avro and "<topic>-value" in avro
    assert "carries each table's columns" not in avro and not out.exists()


# item 5: no <bool> in any help, validation messages in the project's words


def _every_command() -> list[list[str]]:
    group = typer.main.get_command(app)
    assert isinstance(group, typer.core.TyperGroup)
    return [[], *([name] for name in group.commands)]


@pytest.mark.parametrize("command", _every_command(), ids=lambda c: " ".join(c) or "tisink")
def test_no_help_shows_a_type_for_a_flag(command: list[str]) -> None:
    result = invoke(*command, "--help", env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "<bool>" not in result.output
    assert "Value error" not in result.output


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ["play", "--engine", "hash"],
            "play refused: --engine: 'hash' is not one of spark, inline",
        ),
        (["play", "--clock", "x"], "play refused: --clock: 'x' is not one of wall, feed"),
        (["play", "--rows", "many"], "play refused: --rows: 'many' is not a whole number"),
        (["verify"], "verify refused: --sink-uri is required"),
        (["schema", "--out", "x"], "schema refused: PROTOCOL is required"),
    ],
)
def test_a_value_the_options_refuse_is_one_line_in_the_projects_words(
    args: list[str], said: str
) -> None:
    result = invoke(*args)
    assert result.exit_code == 2
    assert result.output.count("\n") == 1, result.output
    assert result.output.startswith(said), result.output
    assert "Value error" not in result.output and "╭" not in result.output
