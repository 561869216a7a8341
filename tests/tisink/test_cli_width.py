"""The command line fits the terminal: tables wrap their prose and never cut a key a user must
type; the help says what each option takes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tisink.bench.output import print_tables
from tisink.bench.results import BenchResult
from tisink.catalog import all_protocols, parameters
from tisink.cli import app
from tisink.codec.registry import get_protocol

WIDTH = 80
TISINK = shutil.which("tisink") or str(Path(sys.executable).with_name("tisink"))


@pytest.mark.parametrize("name", [None, *(spec.name for spec in all_protocols())])
def test_protocols_fit_the_terminal_and_show_every_key_whole(name: str | None) -> None:
    args = ["protocols"] if name is None else ["protocols", name]
    result = CliRunner().invoke(app, args, env={"COLUMNS": str(WIDTH)})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(len(line) for line in lines) <= WIDTH
    assert "…" not in result.output
    cells = {cell.strip() for line in lines for cell in line.split("│")}
    if name is None:
        assert {spec.name for spec in all_protocols()} <= cells
        return
    for parameter in parameters(get_protocol(name)):
        assert parameter.key in cells, parameter.key
        assert parameter.help, f"{name} {parameter.key} has no meaning text"


def test_piped_output_is_not_cut_at_80_columns() -> None:
    """Through a real pipe, no terminal and no COLUMNS: Rich would lay out 80 columns."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    play = subprocess.run(
        [TISINK, "play", "--engine", "inline", "--workload", "sysbench", "--rows", "60",
         "--sink-uri", "blackhole://"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert play.returncode == 0, play.stderr
    latency = next(line for line in play.stderr.splitlines() if "latency_ms" in line)
    assert "mean" in latency and len(latency) > 80, latency
    protocols = subprocess.run(
        [TISINK, "protocols", "canal-json"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert protocols.returncode == 0, protocols.stderr
    meaning = parameters(get_protocol("canal-json"))[0].help
    assert any(meaning in line for line in protocols.stdout.splitlines()), protocols.stdout


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
