"""Run Python code in a child process whose files may not grow past a size (RLIMIT_FSIZE):
a real filesystem refusing a write part way (EFBIG), as a full disk refuses it (ENOSPC)."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys


def run_with_file_limit(code: str, limit: int) -> subprocess.CompletedProcess[str]:
    """Run ``code`` with files capped at ``limit`` bytes; SIGXFSZ is ignored, so a write past
    the cap fails with EFBIG instead of killing the child."""

    def cap() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-c", code],
        preexec_fn=cap,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
