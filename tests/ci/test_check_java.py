"""``.ci/check_java``: CI says up front when Spark's Java is missing or too old."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / ".ci" / "check_java"


def _run(path: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": path}
    return subprocess.run(["/bin/bash", str(SCRIPT)], env=env, capture_output=True, text=True)


def _fake_java(folder: Path, version: str) -> str:
    java = folder / "java"
    java.write_text(f"#!/bin/sh\necho 'openjdk version \"{version}\" 2024-01-16' >&2\n")
    java.chmod(0o755)
    return f"{folder}:/usr/bin:/bin"


@pytest.mark.parametrize(
    ("version", "ok"), [("17.0.10", True), ("21", True), ("11.0.2", False), ("1.8.0_392", False)]
)
def test_the_java_version_is_checked(tmp_path: Path, version: str, ok: bool) -> None:
    result = _run(_fake_java(tmp_path, version))
    assert (result.returncode == 0) is ok, result.stderr
    if not ok:
        assert f"Spark needs Java 17 or later; java on PATH is {version}" in result.stderr


def test_no_java_at_all(tmp_path: Path) -> None:
    result = _run(str(tmp_path))
    assert result.returncode == 1
    assert "there is no java on PATH" in result.stderr


def test_this_machine_has_it() -> None:
    assert _run(os.environ["PATH"]).returncode == 0
