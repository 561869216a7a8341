"""The command line's shared parts (issue 46): an option several commands take is declared
once, ``tisink play``'s parameters are the spec's fields, one helper ends a command on an
error, and one spelling for the JSON file (``--summary-json``) with check's old one hidden."""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import pytest
import typer
import typer.main
from typer.testing import CliRunner

from tests.check.sqlite_dbs import Table, build
from tisink import cli
from tisink.core.errors import ConfigError, TisinkError
from tisink.exits import end_on, fail, refuse
from tisink.feed.play_spec import PlaySpec
from tisink.options import spec_of

SHARED = ("workload", "schema_sql", "seed", "rows", "summary_json", "report")


def _options(command: str) -> dict[str, Any]:
    group = typer.main.get_command(cli.app)
    assert isinstance(group, typer.core.TyperGroup)
    return {p.name or "": p for p in group.commands[command].params}


@pytest.mark.parametrize("name", SHARED)
def test_a_shared_option_reads_the_same_in_every_command(name: str) -> None:
    taking = [c for c in ("play", "generate", "check", "verify", "replay") if name in _options(c)]
    assert len(taking) >= 2, taking
    said = {(tuple(_options(c)[name].opts), _options(c)[name].help) for c in taking}
    assert len(said) == 1, said


def test_every_field_of_the_spec_is_a_parameter_of_play() -> None:
    parameters = inspect.signature(cli.play).parameters
    missing = [f.name for f in fields(PlaySpec) if f.init and f.name not in parameters]
    assert missing == []


@dataclass(frozen=True)
class _Spec:
    a: int
    b: str = "b"


def test_a_spec_takes_its_fields_from_the_parameters_of_their_names() -> None:
    assert spec_of(_Spec, {"a": 1, "b": "x", "other": 3}) == _Spec(1, "x")
    assert spec_of(_Spec, {"a": 1, "b": "x"}, b="worked out") == _Spec(1, "worked out")
    with pytest.raises(KeyError, match="'b'"):
        spec_of(_Spec, {"a": 1})


@pytest.mark.parametrize(
    ("end", "line", "code"),
    [
        (lambda: refuse("play", "no [b]markup[/b]"), "play refused: no [b]markup[/b]", 2),
        (lambda: fail("verify", "gone", 2), "verify failed: gone", 2),
        (lambda: fail("generate", "gone"), "generate failed: gone", 1),
        (lambda: end_on("replay", ConfigError("bad key")), "replay refused: bad key", 2),
        (lambda: end_on("replay", TisinkError("broke")), "replay failed: broke", 1),
    ],
)
def test_a_command_ends_on_one_line_and_its_code(
    end, line: str, code: int, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(typer.Exit) as ended:
        end()
    assert ended.value.exit_code == code
    assert capsys.readouterr().err == line + "\n"


@pytest.mark.parametrize("flag", ["--summary-json", "--report-json"])
def test_check_writes_its_json_under_the_new_and_the_old_spelling(
    tmp_path: Path, flag: str
) -> None:
    columns = (("id", "INTEGER", "bigint(20)"),)
    expected, actual = (
        build(tmp_path / f"{side}.db", [Table("shop.orders", columns, rows=[(1,)])])
        for side in ("expected", "actual")
    )
    out = tmp_path / "check.json"
    args = ["check", "--expected", expected, "--actual", actual, flag, str(out)]
    result = CliRunner().invoke(cli.app, args)
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["ok"] is True


def test_the_help_shows_only_the_new_spelling() -> None:
    shown = CliRunner().invoke(cli.app, ["check", "--help"], env={"COLUMNS": "200"}).output
    assert "--summary-json" in shown and "--report-json" not in shown
