"""Issue 44 item 1: ``tisink check`` never shows a secret of a URL, whether given as
``user:password@`` or as a parameter (``?password=``), in its console report, its
``--summary-json``, its log or its "check failed" line; with the sink URIs' one mask."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.check.sqlite_dbs import Table, build
from tisink.cli import app
from tisink.sink.uri import MASK

SECRET = "S3cret"
COLUMNS = (("id", "INTEGER", "bigint(20)"), ("amount", "TEXT", "decimal(10,2)"))


@pytest.fixture
def sqlite_pair(tmp_path: Path) -> tuple[str, str]:
    rows = [(1, "1.50")]
    expected = build(tmp_path / "e.db", [Table("shop.orders", COLUMNS, rows=rows)])
    actual = build(tmp_path / "a.db", [Table("shop.orders", COLUMNS, rows=[(1, "2.50")])])
    return expected, actual


@pytest.mark.parametrize("side", ["--expected", "--actual"])
def test_a_password_parameter_is_masked_in_the_report_and_its_json(tmp_path, sqlite_pair, side):
    expected, actual = sqlite_pair
    urls = {"--expected": expected, "--actual": actual}
    urls[side] += f"?sslmode=disable&password={SECRET}"
    out = tmp_path / "report.json"
    args = ["check", "--expected", urls["--expected"], "--actual", urls["--actual"]]
    result = CliRunner().invoke(app, [*args, "--summary-json", str(out)])
    assert result.exit_code == 1, result.output
    assert SECRET not in result.output
    assert f"password={MASK}" in result.output
    assert SECRET not in out.read_text()
    assert f"password={MASK}" in out.read_text()


@pytest.mark.parametrize(
    "actual",
    [
        f"sqlite://rel.db?password={SECRET}",
        f"sqlite:///nothing-here.db?password={SECRET}",
        f"postgresql://u@127.0.0.1:1/cdc?password={SECRET}",
        f"postgresql://u:{SECRET}@127.0.0.1:1/cdc?sslpassword={SECRET}",
        f"mysql://u@127.0.0.1:1/?password={SECRET}",
        f"redis://u@h/?token={SECRET}",
    ],
)
def test_a_failed_check_masks_every_secret(sqlite_pair, actual):
    expected, _ = sqlite_pair
    result = CliRunner().invoke(app, ["check", "--expected", expected, "--actual", actual])
    assert result.exit_code == 2, result.output
    assert "check failed" in result.output
    assert SECRET not in result.output
    assert MASK in result.output
