"""The stop logic of ``tisink bench``: a stop request ends the suite's worker and everything it
started within a second or two, keeps the groups that had finished and lists the rest as not
run. The worker here is a small Python script speaking the worker's report lines."""

from __future__ import annotations

import signal
import sys
import textwrap
import time
from pathlib import Path

import orjson
import psutil
import pytest

from tisink.bench.output import markdown
from tisink.bench.results import BenchResult
from tisink.bench.stoppable import GRACE_S, run_suite_stoppable
from tisink.bench.suite import SuiteSettings, suite_steps, write_outputs
from tisink.run.interrupt import StopRequest

SETTINGS = SuiteSettings.quick()
NAMES = [step.name for step in suite_steps(SETTINGS)]
FIRST = BenchResult("encode: 10-column rows (5000)", "simple json", 1000.0, "orjson.dumps", 2000.0)

# The first group finishes, the second starts; then a child that ignores SIGTERM is started
# (as a JVM or a replay worker would be, in the worker's process group) and the worker waits.
WORKER = textwrap.dedent(
    """
    import os, subprocess, sys, time
    folder = sys.argv[1]
    def send(line):
        sys.stdout.write(line + "\\n")
        sys.stdout.flush()
    with open(os.path.join(folder, "tmpdir"), "w") as f:
        f.write(os.environ["TMPDIR"])
    send(sys.argv[2])
    send(sys.argv[3])
    send(sys.argv[4])
    child = subprocess.Popen([sys.executable, "-c",
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(120)"])
    with open(os.path.join(folder, "child"), "w") as f:
        f.write(str(child.pid))
    if sys.argv[5] == "hang":
        time.sleep(120)
    else:
        sys.exit(int(sys.argv[5]))
    """
)


def _worker(tmp_path: Path, ending: str) -> list[str]:
    done = {"done": NAMES[0], "results": [vars(FIRST)]}
    return [
        sys.executable,
        "-c",
        WORKER,
        str(tmp_path),
        orjson.dumps({"step": NAMES[0]}).decode(),
        orjson.dumps(done).decode(),
        orjson.dumps({"step": NAMES[1]}).decode(),
        ending,
    ]


def _gone(pid: int) -> bool:
    """Ended (a zombie waits for whoever adopted it to reap it)."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def _child(tmp_path: Path) -> int:
    deadline = time.monotonic() + 30
    while not (tmp_path / "child").exists():
        assert time.monotonic() < deadline, "the worker never started its child"
        time.sleep(0.05)
    return int((tmp_path / "child").read_text())


def test_a_stop_ends_the_worker_and_its_children_and_keeps_what_finished(
    tmp_path: Path,
) -> None:
    stop = StopRequest()
    steps: list[str] = []

    def step(name: str) -> None:
        steps.append(name)
        if name == NAMES[1]:  # the first group finished: Ctrl-C, as the signal handler does
            _child(tmp_path)
            stop.request(signal.SIGINT)

    asked = time.monotonic()
    run, meta = run_suite_stoppable(SETTINGS, stop, step, _worker(tmp_path, "hang"))
    took = time.monotonic() - asked
    assert took < 10, took  # the worker started, reported, then stopped
    assert steps == NAMES[:2]
    assert run.stopped_by == "SIGINT" and run.failed is None
    assert run.results == [FIRST]
    assert run.finished == NAMES[:1] and run.not_run == NAMES[1:]
    assert meta["stopped"] == "SIGINT" and meta["not_run"] == NAMES[1:]
    assert meta["encode_rows"] == SETTINGS.encode_rows
    assert _gone(_child(tmp_path))  # it ignored SIGTERM: SIGKILL after the grace
    assert not Path((tmp_path / "tmpdir").read_text()).exists()


def test_the_stop_takes_the_grace_at_most(tmp_path: Path) -> None:
    stop = StopRequest()
    timing: dict[str, float] = {}

    def step(name: str) -> None:
        if name == NAMES[1]:
            _child(tmp_path)
            timing["asked"] = time.monotonic()
            stop.request(signal.SIGTERM)

    run, _meta = run_suite_stoppable(SETTINGS, stop, step, _worker(tmp_path, "hang"))
    assert time.monotonic() - timing["asked"] < GRACE_S + 1.5
    assert run.stopped_by == "SIGTERM" and stop.exit_code == 143


@pytest.mark.parametrize("ending", ["0", "3"])
def test_a_worker_that_ends_without_its_meta_failed(tmp_path: Path, ending: str) -> None:
    run, meta = run_suite_stoppable(SETTINGS, StopRequest(), None, _worker(tmp_path, ending))
    assert run.stopped_by is None
    assert run.failed == f"the suite's worker exited with code {ending}"
    assert run.results == [FIRST] and run.not_run == NAMES[1:]
    assert meta["stopped"] == f"failed: {run.failed}"
    assert _gone(_child(tmp_path))  # what the worker left in its group goes too


def test_a_stopped_run_writes_what_finished_and_lists_the_rest(tmp_path: Path) -> None:
    meta = {"repeat": 3, "stopped": "SIGINT", "not_run": NAMES[1:]}
    text = markdown([FIRST], meta)
    assert "stopped: SIGINT" in text and "not_run" not in text
    assert "## not run\n\n" + "\n".join(f"- {name}" for name in NAMES[1:]) in text
    assert "| simple json | 1,000 |" in text
    out = tmp_path / "out"
    out.mkdir()
    (out / "bench.png").write_bytes(b"an earlier run's chart")
    paths = write_outputs([FIRST], meta, out, chart=False)
    assert [p.name for p in paths] == ["bench.json", "bench.md"]
    assert not (out / "bench.png").exists()  # not an earlier run's beside these
    document = orjson.loads(paths[0].read_bytes())
    assert document["meta"]["not_run"] == NAMES[1:] and len(document["results"]) == 1
    paths = write_outputs([], {**meta, "not_run": NAMES}, out)
    assert [p.name for p in paths] == ["bench.json", "bench.md"]
