"""The command line fits the terminal: tables wrap their prose and never cut a key a user must
type; the help says what each option takes."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from tisink.bench.output import print_tables
from tisink.bench.results import BenchResult
from tisink.catalog import all_protocols, parameters
from tisink.cli import app

WIDTH = 80


def test_protocols_fit_the_terminal_and_show_every_key_whole() -> None:
    result = CliRunner().invoke(app, ["protocols"], env={"COLUMNS": str(WIDTH)})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(len(line) for line in lines) <= WIDTH
    assert "…" not in result.output
    cells = {cell.strip() for line in lines for cell in line.split("│")}
    for spec in all_protocols():
        for parameter in parameters(spec):
            assert parameter.key in cells, parameter.key
            assert parameter.help, f"{spec.name} {parameter.key} has no meaning text"


def test_bench_tables_fit_the_terminal(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    result = BenchResult(
        group="codec",
        case="simple-json-demo-rows",
        rows_per_s=123456.0,
        baseline="orjson.dumps of the same rows",
        baseline_rows_per_s=234567.0,
        bytes_per_row=321.5,
        p99_ms=1.25,
        note="a long note that has to wrap on a narrow terminal rather than widen the table",
    )
    print_tables([result])
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= WIDTH
    assert "123,456" in out and "234,567" in out and " simple-json-demo-rows " in out
    assert "simple-json-demo-rows: baseline orjson.dumps of the same rows; a long note" in out


def test_verbose_takes_no_value_and_sinks_help_has_no_markup() -> None:
    top = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "100"})
    line = next(line for line in top.output.splitlines() if "--verbose" in line)
    assert "<int>" not in line and "INTEGER" not in line
    sinks = CliRunner().invoke(app, ["sinks", "--help"], env={"COLUMNS": "100"})
    assert "``" not in sinks.output


def test_error_text_with_brackets_is_not_taken_for_markup(tmp_path) -> None:
    folder = tmp_path / "out[abc]"
    result = CliRunner().invoke(app, ["verify", "--sink-uri", f"file://{folder}"])
    assert result.exit_code != 0
    assert "out[abc]" in result.output
    feed = tmp_path / "[bold]feed.jsonl"
    generated = CliRunner().invoke(
        app, ["generate", "--workload", "all-types", "--rows", "5", "--out", str(feed)]
    )
    assert generated.exit_code == 0, generated.output
    assert "[bold]feed.jsonl" in generated.output
