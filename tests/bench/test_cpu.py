"""The process tree's CPU: a child's work counts, while it runs and once it was reaped."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from tisink.bench.cpu import PROC, tree_cpu_seconds

pytestmark = pytest.mark.skipif(not PROC.is_dir(), reason="reads /proc")
BURN = "import time\nend = time.process_time() + 0.5\nwhile time.process_time() < end: pass\n"


def test_a_running_child_counts() -> None:
    before = tree_cpu_seconds()
    child = subprocess.Popen([sys.executable, "-c", BURN + "time.sleep(30)"])
    try:
        deadline = time.monotonic() + 20
        while tree_cpu_seconds() - before < 0.5 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert tree_cpu_seconds() - before >= 0.5
    finally:
        child.kill()
        child.wait()


def test_a_reaped_child_still_counts() -> None:
    before = tree_cpu_seconds()
    subprocess.run([sys.executable, "-c", BURN], check=True)
    assert tree_cpu_seconds() - before >= 0.5
