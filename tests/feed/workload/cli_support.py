"""``tisink generate`` or ``play`` run in a subprocess as a user runs them, for the tests of what
they refuse (their modules are ``cli``-marked in ``tests/markers.py``)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

TISINK = shutil.which("tisink") or str(Path(sys.executable).with_name("tisink"))


def run_command(tmp_path: Path, command: str, args: list[str]) -> tuple[int, str]:
    """Exit code and the output with its white space folded; ``generate`` writes into
    ``tmp_path``, ``play`` plays inline into a blackhole."""
    if command == "generate":
        args = [*args, "--out", str(tmp_path / "f.jsonl")]
    else:
        args = [*args, "--engine", "inline", "--sink-uri", "blackhole://"]
    run = subprocess.run([TISINK, command, *args], capture_output=True, text=True, timeout=120)
    return run.returncode, " ".join((run.stdout + run.stderr).split())
