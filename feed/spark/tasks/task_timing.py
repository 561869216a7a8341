"""Per-task timing records for the efficiency bench (``bench/bench_spark_efficiency.py``).

With ``TISINK_SPARK_PROFILE`` set to a folder (a local master's workers inherit the driver's
environment), each task of stage one and of stage two writes one JSON file there: its stage,
wall-clock start and end, the CPU its thread used and its thread's scheduling policy
(``batch_scheduling``). The bench cuts the process tree's CPU samples into phases with them.
A task also writes its cProfile to ``cprofile/`` there, where
PySpark's ``spark.python.profile.dump`` puts an RDD function's: PySpark profiles no Arrow
function (``mapInArrow``), and the feed's stages are Arrow functions; with
``TISINK_SPARK_CPROFILE=0`` it does not (the phases' CPU without cProfile's cost). Unset, the
job runs without the wrapper.
"""

from __future__ import annotations

import cProfile
import json
import os
import sys
import time
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TypeVar

PROFILE_ENV = "TISINK_SPARK_PROFILE"
CPROFILE_ENV = "TISINK_SPARK_CPROFILE"

T = TypeVar("T")


def profile_folder() -> str | None:
    return os.environ.get(PROFILE_ENV) or None


def timed(stage: str, folder: str, items: Iterable[T]) -> Iterator[T]:
    """``items`` unchanged; once exhausted, a record of the task's span in ``folder``."""
    start, cpu = time.time(), time.thread_time()
    name = f"{stage.replace(' ', '-')}-{uuid.uuid4().hex[:8]}"
    wanted = os.environ.get(CPROFILE_ENV) != "0" and sys.getprofile() is None  # PySpark's may run
    profiler = cProfile.Profile() if wanted else None
    if profiler is not None:
        profiler.enable()
    try:
        yield from items
    finally:
        if profiler is not None:
            profiler.disable()
    if profiler is not None:
        dumps = Path(folder) / "cprofile"
        dumps.mkdir(exist_ok=True)
        profiler.dump_stats(dumps / f"{name}.pstats")
    record = {
        "stage": stage,
        "start": start,
        "end": time.time(),
        "thread_cpu_s": time.thread_time() - cpu,
        "pid": os.getpid(),
        "sched_policy": os.sched_getscheduler(0) if hasattr(os, "sched_getscheduler") else None,
    }
    path = Path(folder) / f"{name}.json"
    path.write_text(json.dumps(record), encoding="utf-8")
