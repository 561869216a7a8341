"""``tisink generate`` and ``play`` refuse a workload too big to generate at once, exit 2.

Runs ``tisink`` in a subprocess."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from tests.feed.workload.cli_support import TISINK, run_command

STORM = """
[[tables]]
name = "t"
columns = [{ name = "id", type = "int" }]
primary = ["id"]

[ddl_storm]
per_minute = 1e8
"""


def test_generate_refuses_a_huge_workload_at_once_with_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "big.toml"
    path.write_text(STORM)
    out = tmp_path / "f.jsonl"
    started = time.perf_counter()
    run = subprocess.run(
        [TISINK, "generate", "--workload", str(path), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    said = " ".join((run.stdout + run.stderr).split())
    assert run.returncode == 2, said
    assert f"generate refused: {path}: [ddl_storm] per_minute = 1e+08" in said
    assert "Traceback" not in said
    assert time.perf_counter() - started < 60


@pytest.mark.parametrize("command", ["generate", "play"])
def test_rows_too_many_for_the_schedule_are_refused_with_exit_2(
    tmp_path: Path, command: str
) -> None:
    code, said = run_command(tmp_path, command, ["--workload", "demo", "--rows", str(10**20)])
    assert code == 2, said
    assert f"{command} refused: demo.toml: rows = 100000000000000000000 at rate" in said
    assert "Traceback" not in said
