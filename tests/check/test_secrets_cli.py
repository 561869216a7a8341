"""Issue 44 item 1, as a user runs it: ``tisink check --expected FEED --actual
'sqlite:///...?password=S3cret' --summary-json r.json`` never shows the password on stdout, on
stderr or in the report, nor in the "check failed" line. Runs ``tisink`` in a subprocess."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.check.sqlite_dbs import build
from tisink.feed.workload import generate_feed
from tisink.sink.uri import MASK

SECRET = "S3cret"


def tisink(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from tisink.cli import main; main()", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=120)


def test_the_command_never_prints_a_password_parameter(tmp_path: Path) -> None:
    """The issue's case as a user runs it: stdout, stderr and the report, then the
    "check failed" path."""
    feed = tmp_path / "f.jsonl"
    generate_feed("demo", 0, 40, feed)
    build(tmp_path / "consumer.db", [])
    report = tmp_path / "r.json"
    actual = f"sqlite:///consumer.db?password={SECRET}"
    done = tisink(
        "check",
        "--expected",
        str(feed),
        "--actual",
        actual,
        "--summary-json",
        str(report),
        cwd=tmp_path,
    )
    assert done.returncode == 1, done.stderr
    assert SECRET not in done.stdout + done.stderr
    assert f"password={MASK}" in done.stdout
    assert SECRET not in report.read_text()
    unreachable = f"postgresql://u@127.0.0.1:1/cdc?password={SECRET}"
    failed = tisink("check", "--expected", str(feed), "--actual", unreachable, cwd=tmp_path)
    assert failed.returncode == 2, failed.stderr
    assert "check failed" in failed.stderr
    assert SECRET not in failed.stdout + failed.stderr
