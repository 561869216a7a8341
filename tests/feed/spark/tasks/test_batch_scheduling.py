"""A Spark task's thread asks for batch scheduling with long slices, and nothing else changes."""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import orjson
import pytest

from tisink.feed.spark.tasks import batch_scheduling
from tisink.feed.spark.tasks.batch_scheduling import SLICE_NS, schedule_as_batch
from tisink.feed.spark.tasks.task_timing import CPROFILE_ENV, PROFILE_ENV

LINUX = sys.platform.startswith("linux") and platform.machine() in ("x86_64", "aarch64")


def _in_thread(work: Any) -> Any:
    """``work()``'s result, run in a thread of its own (the test's thread keeps its policy)."""
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(work()))
    thread.start()
    thread.join()
    return out[0]


def _slice_ns() -> int | None:
    text = Path("/proc/thread-self/sched").read_text(encoding="utf-8")
    found = re.search(r"^se\.slice\s*:\s*(\d+)", text, re.MULTILINE)
    return int(found.group(1)) if found else None


def _kernel_at_least(major: int, minor: int) -> bool:
    found = re.match(r"(\d+)\.(\d+)", platform.release())
    return found is not None and (int(found.group(1)), int(found.group(2))) >= (major, minor)


@pytest.mark.skipif(not LINUX, reason="sched_setattr is called on Linux x86_64 and aarch64")
def test_the_calling_thread_becomes_a_batch_thread_and_keeps_its_nice_value() -> None:
    def work() -> tuple[bool, int, int, int | None]:
        os.setpriority(os.PRIO_PROCESS, 0, 3)  # this thread's, on Linux
        done = schedule_as_batch()
        return done, os.sched_getscheduler(0), os.getpriority(os.PRIO_PROCESS, 0), _slice_ns()

    before = os.sched_getscheduler(0)
    done, policy, nice, slice_ns = _in_thread(work)
    assert done
    assert policy == os.SCHED_BATCH
    assert nice == 3
    if _kernel_at_least(6, 12) and slice_ns is not None:
        assert slice_ns == SLICE_NS
    assert os.sched_getscheduler(0) == before  # another thread's policy is its own


def test_an_unknown_machine_is_left_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batch_scheduling.platform, "machine", lambda: "sparc64")

    def work() -> tuple[bool, int | None]:
        done = schedule_as_batch()
        return done, os.sched_getscheduler(0) if hasattr(os, "sched_getscheduler") else None

    done, policy = _in_thread(work)
    assert not done
    if hasattr(os, "sched_getscheduler"):
        assert policy == os.sched_getscheduler(0)


@pytest.mark.skipif(not LINUX, reason="sched_setattr is called on Linux x86_64 and aarch64")
def test_every_task_of_a_spark_play_runs_as_a_batch_thread(tmp_path: Path) -> None:
    """A generated play's owners, and a feed's stage one and stage two, as their timing
    records (``TISINK_SPARK_PROFILE``) report their threads' policy. Each play's workers
    first run a task that does not ask (the survey, the schedule's read), so the owners and
    stage one are told apart; stage two runs in stage one's reused workers."""
    tisink = shutil.which("tisink") or str(Path(sys.executable).with_name("tisink"))
    feed = tmp_path / "demo.jsonl"
    generate = [tisink, "generate", "--workload", "demo", "--rows", "600", "--seed", "1"]
    subprocess.run([*generate, "--out", str(feed)], check=True, capture_output=True)
    records: list[dict[str, Any]] = []
    for name, source in (("workload", generate[2:]), ("feed", ["--feed", str(feed)])):
        folder = tmp_path / f"profile-{name}"
        folder.mkdir()
        env = {**os.environ, PROFILE_ENV: str(folder), CPROFILE_ENV: "0"}
        sink = f"file://{tmp_path / name}?protocol=canal-json&partition-num=3"
        command = [tisink, "play", *source, "--sink-uri", sink, "--master", "local[2]"]
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        records += [orjson.loads(path.read_bytes()) for path in folder.glob("*.json")]
    assert {record["stage"] for record in records} == {"owners", "stage one", "stage two"}
    assert {record["sched_policy"] for record in records} == {os.SCHED_BATCH}
