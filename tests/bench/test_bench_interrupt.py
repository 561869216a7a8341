"""Ctrl-C on a real ``tisink bench --quick``: it stops within seconds, says so in one line,
writes the groups that finished (the rest listed as not run) and exits 130. Runs the
``tisink`` command in a subprocess."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import orjson

from tisink.bench.suite import SuiteSettings, suite_steps

TISINK = shutil.which("tisink") or str(Path(sys.executable).with_name("tisink"))
NAMES = [step.name for step in suite_steps(SuiteSettings.quick())]
STOP_BOUND_S = 10.0
"""SIGINT to exit: the worker's grace (1 s), the outputs and the interpreter's exit, on a
shared two-core machine."""


def test_ctrl_c_after_the_first_group_stops_the_bench(tmp_path: Path) -> None:
    out = tmp_path / "out"
    process = subprocess.Popen(
        [TISINK, "-v", "bench", "--quick", "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    assert process.stderr is not None
    reader = threading.Thread(target=lambda: lines.extend(process.stderr or ()), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 300
        while not any(f"finished {NAMES[0]}" in line for line in lines):
            assert process.poll() is None, "".join(lines)
            assert time.monotonic() < deadline, "".join(lines)
            time.sleep(0.1)
        asked = time.monotonic()
        process.send_signal(signal.SIGINT)
        code = process.wait(STOP_BOUND_S)
        took = time.monotonic() - asked
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    reader.join(5)
    said = "".join(lines)
    assert code == 130, said
    assert took < STOP_BOUND_S
    stopped = [line for line in lines if "bench stopped by SIGINT" in line]
    assert len(stopped) == 1, said
    assert "not run; wrote" in stopped[0] and "Traceback" not in said
    document = orjson.loads((out / "bench.json").read_bytes())
    finished = len(NAMES) - len(document["meta"]["not_run"])
    assert finished >= 1 and document["meta"]["not_run"] == NAMES[finished:]
    assert document["meta"]["stopped"] == "SIGINT"
    groups = {result["group"] for result in document["results"]}
    assert "encode: 10-column rows (5000)" in groups
    assert not any(result["error"] for result in document["results"])
    assert not (out / "bench.png").exists()  # a stopped run is not charted
    text = (out / "bench.md").read_text(encoding="utf-8")
    assert "## not run" in text and f"- {NAMES[-1]}" in text
