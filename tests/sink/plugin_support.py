"""Installing ``tests/plugin_dist`` as a user would: built and installed by pip into a folder
that a fresh interpreter then has on its path (the plugin is never importable in-process)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

PLUGIN_DIST = Path(__file__).resolve().parents[1] / "plugin_dist"


def install_plugin_dist(tmp_path: Path) -> dict[str, str]:
    """Install the test plugins under ``tmp_path``; the environment that finds them."""
    source = tmp_path / "src"
    shutil.copytree(PLUGIN_DIST, source, ignore=shutil.ignore_patterns("build", "*.egg-info"))
    site = tmp_path / "site"
    install = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--target",
            str(site),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=150,
    )
    assert install.returncode == 0, install.stderr
    path = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path}


def run_python(code: str, env: dict[str, str], *args: str, timeout: float = 60) -> str:
    """Run ``code`` in a fresh interpreter; its last line of output."""
    run = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    return run.stdout.strip().splitlines()[-1]
